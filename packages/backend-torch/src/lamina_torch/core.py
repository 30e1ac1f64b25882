"""Conversion, dtypes, devices and tracing for torch.Tensor."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import torch

from lamina.backend.kit import DType, Tensor, numpy_views_allowed, to_numpy_dtype

_TORCH_DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "uint16": torch.uint16,
    "uint32": torch.uint32,
    "uint64": torch.uint64,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}

_DEVICE: list[torch.device] = []
"""The device of the innermost `device_scope`; empty means the default device."""


def to_torch_dtype(dtype: DType) -> torch.dtype:
    """The torch dtype for a standardized dtype name."""
    return _TORCH_DTYPES[dtype]


def default_device() -> torch.device:
    """Where new tensors go: the innermost device scope, else CUDA if visible, else CPU."""
    if _DEVICE:
        return _DEVICE[-1]
    return _visible_device()


@functools.cache
def _visible_device() -> torch.device:
    # Asked once: CUDA's visibility is fixed when the process starts.
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def convert_to_tensor(x: Any, dtype: DType | None = None, sparse: bool | None = None) -> Tensor:
    target = to_torch_dtype(dtype) if dtype is not None else None
    if isinstance(x, torch.Tensor):
        return x if target is None or x.dtype == target else x.to(target)
    if isinstance(x, np.ndarray) and x.dtype.kind == "V" and x.dtype.name == "bfloat16":
        # torch cannot read ml_dtypes' bfloat16 buffers; go through float32.
        out = torch.as_tensor(x.astype(np.float32), device=default_device())
        return out.to(target or torch.bfloat16)
    if isinstance(x, np.ndarray) and (not x.flags.writeable or any(step < 0 for step in x.strides)):
        # torch cannot wrap NumPy views with negative strides (x[::-1]), and would share
        # read-only memory (a memory-mapped file) as a writable tensor.
        x = x.copy()
    if dtype is not None and not isinstance(x, np.ndarray):
        x = np.asarray(x, dtype=to_numpy_dtype(dtype) if dtype != "bfloat16" else np.float32)
    out = torch.as_tensor(x, device=default_device())
    return out if target is None or out.dtype == target else out.to(target)


def convert_to_numpy(x: Tensor) -> np.ndarray[Any, Any]:
    from lamina_torch.model_parallel import whole

    x = whole(x).detach()  # a DTensor (ModelParallel) is gathered from every process
    if x.dtype == torch.bfloat16:
        return x.cpu().to(torch.float32).numpy().astype(to_numpy_dtype("bfloat16"))
    if numpy_views_allowed() and x.device.type == "cpu":
        view: np.ndarray[Any, Any] = x.numpy()
        view.flags.writeable = False
        return view
    return np.array(x.cpu().numpy())


def is_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor)


def cast(x: Tensor, dtype: DType) -> Tensor:
    return x.to(to_torch_dtype(dtype))


def shape(x: Tensor) -> tuple[Any, ...]:
    return tuple(x.shape)


@contextlib.contextmanager
def _on_device(device: torch.device) -> Iterator[None]:
    _DEVICE.append(device)
    try:
        yield
    finally:
        _DEVICE.pop()


def device_scope(device_name: str) -> AbstractContextManager[None]:
    kind, _, index = device_name.partition(":")
    if kind == "cpu":
        return _on_device(torch.device("cpu"))
    if kind in ("gpu", "cuda"):
        if not torch.cuda.is_available() or int(index or 0) >= torch.cuda.device_count():
            raise ValueError(
                f"No such CUDA device is visible to PyTorch. Received: device_name={device_name!r}"
            )
        return _on_device(torch.device("cuda", int(index or 0)))
    raise ValueError(
        f"The torch backend supports 'cpu' and 'gpu:<i>'. Received: device_name={device_name!r}"
    )


def compute_output_spec(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    # Run on "meta" tensors (shapes and dtypes only, no data) inside a meta device scope, so
    # constants and variable reads (see TorchVariable) land on meta too. Ops without a meta
    # kernel, or needing values, fall back to zero-filled CPU tensors.
    from lamina.backend.kit import trace_with_arrays

    def make_meta(shape: tuple[int, ...], dtype: Any) -> Tensor:
        return torch.empty(shape, dtype=_torch_dtype_of(dtype), device="meta")

    def make_zeros(shape: tuple[int, ...], dtype: Any) -> Tensor:
        return torch.zeros(shape, dtype=_torch_dtype_of(dtype), device=storage_device())

    try:
        with _on_device(torch.device("meta")):
            return trace_with_arrays(fn, args, kwargs, make_meta)
    except Exception:
        return trace_with_arrays(fn, args, kwargs, make_zeros)


def _torch_dtype_of(dtype: Any) -> torch.dtype:
    from lamina.backend.kit import standardize_dtype

    return to_torch_dtype(standardize_dtype(dtype))


def meta_tracing() -> bool:
    """Whether `compute_output_spec` is running its function on meta tensors."""
    return bool(_DEVICE) and _DEVICE[-1].type == "meta"


def storage_device() -> torch.device:
    """Where real data goes: the innermost device scope other than meta, else the default."""
    for device in reversed(_DEVICE):
        if device.type != "meta":
            return device
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
