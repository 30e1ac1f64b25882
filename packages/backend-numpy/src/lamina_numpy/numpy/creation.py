"""NumPy: creation ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    return np.full(shape, fill_value, dtype=to_numpy_dtype(dtype))


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    return np.full(np.shape(x), fill_value, dtype=to_numpy_dtype(dtype))


def copy(x: Tensor) -> Tensor:
    return np.array(x, copy=True)


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    return np.arange(start, stop, step, dtype=to_numpy_dtype(dtype))


def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    with np.errstate(invalid="ignore", divide="ignore"):
        samples, step = np.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
    dtype = np.result_type(start, stop)
    return samples.astype(dtype), np.asarray(step, dtype=dtype)


def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    dtype = np.result_type(start, stop)
    return np.geomspace(start, stop, num, endpoint, axis=axis).astype(dtype)
