"""jax: products and contractions."""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.kit import Tensor

__all__ = [
    "correlate",
    "cross",
    "dot",
    "einsum",
    "inner",
    "kron",
    "matmul",
    "outer",
    "tensordot",
    "trace",
    "trapezoid",
    "vander",
    "vdot",
]


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


def inner(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.inner(x1, x2)


def kron(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.kron(x1, x2)


def outer(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.outer(x1, x2)


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return jnp.tensordot(x1, x2, axes=axes)


def trace(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    return jnp.trace(x, offset=offset, axis1=axis1, axis2=axis2, dtype=x.dtype)


def trapezoid(y: Tensor, x: Tensor | None, dx: float, axis: int) -> Tensor:
    return jnp.trapezoid(y, x=x, dx=dx, axis=axis).astype(y.dtype)


def vander(x: Tensor, N: int, increasing: bool) -> Tensor:
    return jnp.vander(x, N=N, increasing=increasing)


def vdot(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.vdot(x1, x2)
