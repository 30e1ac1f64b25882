"""NumPy: products and contractions."""

from __future__ import annotations

from typing import Literal, cast

import numpy as np

from lamina.backend.kit import Tensor
from lamina_numpy._bfloat16 import via_float32

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
    return via_float32(np.matmul, x1, x2)


def cross(x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor:
    # np.cross deprecates 2-vectors (NumPy 2.0), so they are padded to 3 with a zero.
    a, b = np.moveaxis(x1, axisa, -1), np.moveaxis(x2, axisb, -1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return np.asarray(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])
    pad_a = [(0, 0)] * (a.ndim - 1) + [(0, 3 - a.shape[-1])]
    pad_b = [(0, 0)] * (b.ndim - 1) + [(0, 3 - b.shape[-1])]
    out = np.cross(np.pad(a, pad_a), np.pad(b, pad_b))
    return np.moveaxis(out, -1, axisc)


def correlate(x1: Tensor, x2: Tensor, mode: str) -> Tensor:
    return np.correlate(x1, x2, mode=cast(Literal["valid", "same", "full"], mode))


def dot(x1: Tensor, x2: Tensor) -> Tensor:
    return np.asarray(np.dot(x1, x2))


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    return via_float32(lambda *arrays: np.einsum(subscripts, *arrays), *operands)


def inner(x1: Tensor, x2: Tensor) -> Tensor:
    return np.asarray(np.inner(x1, x2))


def kron(x1: Tensor, x2: Tensor) -> Tensor:
    return np.kron(x1, x2)


def outer(x1: Tensor, x2: Tensor) -> Tensor:
    return np.outer(x1, x2)


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return np.asarray(np.tensordot(x1, x2, axes=axes))


def trace(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    return np.asarray(np.trace(x, offset=offset, axis1=axis1, axis2=axis2, dtype=x.dtype))


def trapezoid(y: Tensor, x: Tensor | None, dx: float, axis: int) -> Tensor:
    return np.asarray(np.trapezoid(y, x=x, dx=dx, axis=axis), dtype=y.dtype)


def vander(x: Tensor, N: int, increasing: bool) -> Tensor:
    return np.vander(x, N=N, increasing=increasing).astype(x.dtype)


def vdot(x1: Tensor, x2: Tensor) -> Tensor:
    return np.asarray(np.vdot(x1, x2))
