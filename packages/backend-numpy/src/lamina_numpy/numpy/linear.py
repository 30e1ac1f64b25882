"""NumPy: products and contractions."""

from __future__ import annotations

from typing import Literal, cast

import numpy as np

from lamina.backend.kit import Tensor
from lamina_numpy._bfloat16 import via_float32


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


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return np.asarray(np.tensordot(x1, x2, axes=axes))
