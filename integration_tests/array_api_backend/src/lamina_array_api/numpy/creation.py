"""array API: creation ops."""

from __future__ import annotations

import math
from typing import Any

from lamina.backend.kit import DType, Tensor
from lamina_array_api._xp import ARRAY, as_dtype, index_grid, quiet, xp

__all__ = [
    "arange",
    "copy",
    "full",
    "full_like",
    "geomspace",
    "linspace",
]


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    # The standard's `full` takes a Python scalar; a tensor fill is broadcast instead.
    fill = xp.astype(xp.asarray(fill_value), as_dtype(dtype))
    return xp.asarray(xp.broadcast_to(fill, tuple(shape)), copy=True)


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    return full(tuple(x.shape), fill_value, dtype)


def copy(x: Tensor) -> Tensor:
    return xp.asarray(x, copy=True)


def _number(v: Any) -> Any:
    if isinstance(v, ARRAY):
        return v.__index__() if xp.isdtype(v.dtype, "integral") else float(v)
    return v


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    target = as_dtype(dtype)
    start, stop, step = _number(start), _number(stop), _number(step)
    if all(isinstance(v, int) for v in (start, stop, step)):
        return xp.astype(xp.arange(start, stop, step, dtype=xp.int64), target)
    # Fractional bounds: count and values in float64, then cast (NumPy's rule).
    count = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    values = float(start) + xp.astype(index_grid(count), xp.float64) * float(step)
    return xp.astype(values, target)


def _place(samples: Tensor, axis: int) -> Tensor:
    """Move the sample axis (leading) to `axis`."""
    return xp.moveaxis(samples, 0, axis)


@quiet
def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    dtype = xp.result_type(start, stop)
    lo, hi = xp.broadcast_arrays(xp.astype(start, xp.float64), xp.astype(stop, xp.float64))
    div = num - 1 if endpoint else num
    delta = hi - lo
    step = delta / div if div > 0 else xp.full(lo.shape, math.nan, dtype=xp.float64)
    steps = xp.reshape(xp.astype(index_grid(num), xp.float64), (num,) + (1,) * lo.ndim)
    samples = lo[None, ...] + steps * (step if div > 0 else xp.zeros_like(lo))[None, ...]
    if endpoint and num > 1:
        samples = xp.concat([samples[:-1, ...], hi[None, ...]], axis=0)
    return xp.astype(_place(samples, axis), dtype), xp.astype(step, dtype)


@quiet
def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    dtype = xp.result_type(start, stop)
    lo, hi = xp.broadcast_arrays(xp.astype(start, xp.float64), xp.astype(stop, xp.float64))
    sign = xp.sign(lo)
    logs, _ = linspace(xp.log10(xp.abs(lo)), xp.log10(xp.abs(hi)), num, endpoint, 0)
    out = sign[None, ...] * xp.pow(xp.asarray(10.0, dtype=xp.float64), logs)
    # The ends are the inputs exactly, as in NumPy.
    if num > 0:
        parts = [lo[None, ...], out[1:, ...]] if num > 1 else [lo[None, ...]]
        out = xp.concat(parts, axis=0)
    if endpoint and num > 1:
        out = xp.concat([out[:-1, ...], hi[None, ...]], axis=0)
    return xp.astype(_place(out, axis), dtype)
