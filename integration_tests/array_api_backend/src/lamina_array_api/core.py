"""Conversion, dtypes and devices: arrays cross to and from NumPy through DLPack."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, trace_with_arrays
from lamina_array_api._xp import ARRAY, as_dtype, xp

__all__ = [
    "cast",
    "compute_output_spec",
    "convert_to_numpy",
    "convert_to_tensor",
    "device_scope",
    "is_tensor",
    "shape",
]


def convert_to_tensor(x: Any, dtype: DType | None = None, sparse: bool | None = None) -> Tensor:
    if not isinstance(x, ARRAY) and not isinstance(x, (bool, int, float, complex)):
        # Lists, NumPy arrays and other backends' arrays go through NumPy first; the
        # standard's asarray takes only scalars, nested sequences and buffers.
        x = np.asarray(x)
        if dtype is not None:
            x = x.astype(np.dtype(_numpy_name(dtype)))
    if dtype is None:
        return xp.asarray(x)
    return xp.asarray(x, dtype=as_dtype(dtype))


def _numpy_name(dtype: DType) -> str:
    target = as_dtype(dtype)
    return str(np.dtype(str(target).rpartition(".")[2]))


def convert_to_numpy(x: Tensor) -> np.ndarray[Any, Any]:
    if not isinstance(x, ARRAY):
        return np.asarray(x)
    # DLPack is the standard's way out; copy so the caller owns the result.
    return np.array(np.from_dlpack(x), copy=True)


def is_tensor(x: Any) -> bool:
    return isinstance(x, ARRAY)


def cast(x: Tensor, dtype: DType) -> Tensor:
    return xp.astype(x, as_dtype(dtype))


def shape(x: Tensor) -> tuple[Any, ...]:
    return tuple(x.shape)


@contextlib.contextmanager
def _host_only() -> Iterator[None]:
    yield


def device_scope(device_name: str) -> AbstractContextManager[None]:
    # array-api-strict computes on the host (its other "devices" are test doubles).
    if not device_name.lower().startswith("cpu"):
        raise ValueError(
            f"The array_api backend runs on the CPU only. Received: device_name={device_name!r}"
        )
    return _host_only()


def compute_output_spec(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return trace_with_arrays(
        fn, args, kwargs, lambda shape, dtype: xp.zeros(shape, dtype=as_dtype(dtype))
    )
