"""Conversion, dtypes and devices for NumPy arrays."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, numpy_views_allowed, to_numpy_dtype


def convert_to_tensor(x: Any, dtype: DType | None = None, sparse: bool | None = None) -> Tensor:
    if dtype is None:
        return np.asarray(x)
    return np.asarray(x, dtype=to_numpy_dtype(dtype))


def convert_to_numpy(x: Tensor) -> np.ndarray[Any, Any]:
    if numpy_views_allowed():
        view = np.asarray(x).view()
        view.flags.writeable = False
        return view
    return np.array(x)


def is_tensor(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def cast(x: Tensor, dtype: DType) -> Tensor:
    return np.asarray(x).astype(to_numpy_dtype(dtype), copy=False)


def shape(x: Tensor) -> tuple[Any, ...]:
    return tuple(np.shape(x))


@contextlib.contextmanager
def _cpu_only(device_name: str) -> Iterator[None]:
    yield


def device_scope(device_name: str) -> AbstractContextManager[None]:
    # NumPy computes on the host only; asking for an accelerator is a clear error.
    if not device_name.startswith("cpu"):
        raise ValueError(
            f"The numpy backend runs on the CPU only. Received: device_name={device_name!r}"
        )
    return _cpu_only(device_name)


def compute_output_spec(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    from lamina.backend.kit import trace_with_arrays

    return trace_with_arrays(fn, args, kwargs, lambda shape, dtype: np.zeros(shape, dtype))
