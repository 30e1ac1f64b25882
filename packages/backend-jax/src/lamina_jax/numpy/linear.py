"""jax: products and contractions."""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.kit import Tensor


def matmul(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.matmul(x1, x2)


def cross(x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor:
    # Like np.cross, 2-vectors are deprecated, so they are padded to 3 with a zero.
    a, b = jnp.moveaxis(x1, axisa, -1), jnp.moveaxis(x2, axisb, -1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    pad_a = [(0, 0)] * (a.ndim - 1) + [(0, 3 - a.shape[-1])]
    pad_b = [(0, 0)] * (b.ndim - 1) + [(0, 3 - b.shape[-1])]
    out = jnp.cross(jnp.pad(a, pad_a), jnp.pad(b, pad_b))
    return jnp.moveaxis(out, -1, axisc)


def correlate(x1: Tensor, x2: Tensor, mode: str) -> Tensor:
    return jnp.correlate(x1, x2, mode=mode)


def dot(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.dot(x1, x2)


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    return jnp.einsum(subscripts, *operands)


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return jnp.tensordot(x1, x2, axes=axes)
