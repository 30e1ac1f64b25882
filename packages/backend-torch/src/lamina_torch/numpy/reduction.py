"""torch: reductions, statistics, cumulative ops, sorting and searching."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import torch

from lamina.backend.kit import Tensor

Axes = tuple[int, ...] | None


def _dims(x: Tensor, axis: Axes) -> tuple[int, ...]:
    # torch reads dim=() as "all dims"; spell every axis out instead.
    return tuple(range(x.ndim)) if axis is None else axis


def _reduce(fn: Callable[..., Tensor], x: Tensor, axis: Axes, keepdims: bool) -> Tensor:
    """A tuple-dim torch reduction with NumPy's meaning of `axis` (``()`` reduces nothing)."""
    dims = _dims(x, axis)
    if not dims:
        return x
    return fn(x, dim=dims, keepdim=keepdims)


def _reduce_each(fn: Callable[..., Tensor], x: Tensor, axis: Axes, keepdims: bool) -> Tensor:
    """A torch reduction over one dim at a time (torch.prod and others take a single dim)."""
    for d in sorted(_dims(x, axis), reverse=True):
        x = fn(x, dim=d, keepdim=keepdims)
    return x


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce(lambda t, **k: torch.sum(t, dtype=t.dtype, **k), x, axis, keepdims)


def prod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce_each(lambda t, **k: torch.prod(t, dtype=t.dtype, **k), x, axis, keepdims)


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce(torch.mean, x, axis, keepdims)


def _empty_reduction(x: Tensor, axis: Axes, keepdims: bool, initial: Any) -> Tensor | None:
    """`initial` in the reduced shape when a reduced dim is empty (torch.amax raises there)."""
    dims = _dims(x, axis)
    if initial is None or builtins.all(x.shape[d] for d in dims):
        return None
    shape = [1 if i in dims else n for i, n in enumerate(x.shape) if keepdims or i not in dims]
    return x.new_full(shape, initial)


def max(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    empty = _empty_reduction(x, axis, keepdims, initial)
    if empty is not None:
        return empty
    out = _reduce(torch.amax, x, axis, keepdims)
    return out if initial is None else torch.clamp(out, min=initial)


def min(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    empty = _empty_reduction(x, axis, keepdims, initial)
    if empty is not None:
        return empty
    out = _reduce(torch.amin, x, axis, keepdims)
    return out if initial is None else torch.clamp(out, max=initial)


def all(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce(torch.all, x, axis, keepdims)


def any(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce(torch.any, x, axis, keepdims)


def var(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _reduce(lambda t, **k: torch.var(t, correction=0, **k), x, axis, keepdims)


def _to_last(x: Tensor, axis: Axes) -> tuple[Tensor, list[int]]:
    """`x` with the `axis` dims flattened into one last dim, and the keepdims shape."""
    dims = _dims(x, axis)
    kept = [1 if i in dims else d for i, d in enumerate(x.shape)]
    rest = [i for i in range(x.ndim) if i not in dims]
    moved = x.permute(*rest, *dims) if x.ndim else x.reshape(1)
    return moved.reshape(*[x.shape[i] for i in rest], -1), kept


def _quantile(
    fn: Callable[..., Tensor], x: Tensor, q: Tensor, axis: Axes, method: str, keepdims: bool
) -> Tensor:
    # torch.quantile takes one dim and only float32/float64.
    dtype = x.dtype
    wide = dtype if dtype in (torch.float32, torch.float64) else torch.float32
    flat, kept = _to_last(x.to(wide), axis)
    out = fn(flat, q.to(wide), dim=-1, interpolation=method)
    if keepdims:
        out = out.reshape(*q.shape, *kept)
    return out.to(dtype)


def quantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(torch.quantile, x, q, axis, method, keepdims)


def nanquantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(torch.nanquantile, x, q, axis, method, keepdims)


def _arg(fn: Callable[..., Tensor], x: Tensor, axis: int | None, keepdims: bool) -> Tensor:
    if axis is None:
        # torch ignores keepdim without a dim; NumPy keeps every dim with length 1.
        out = fn(x.reshape(-1), dim=0)
        return out.reshape([1] * x.ndim) if keepdims else out
    return fn(x, dim=axis, keepdim=keepdims)


def argmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _arg(torch.argmax, x, axis, keepdims)


def argmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _arg(torch.argmin, x, axis, keepdims)


def _along(x: Tensor, axis: int | None) -> tuple[Tensor, int]:
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    x, axis = _along(x, axis)
    return torch.cumsum(x, dim=axis, dtype=x.dtype)


def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    x, axis = _along(x, axis)
    return torch.cumprod(x, dim=axis, dtype=x.dtype)


def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    x, axis = _along(x, axis)
    return torch.sort(x, dim=axis, stable=True).values


def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    x, axis = _along(x, axis)
    return torch.argsort(x, dim=axis, stable=True)


def searchsorted(sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
    out = torch.searchsorted(sorted_sequence, values.reshape(-1), right=side == "right")
    return out.reshape(values.shape)


def sorted_unique(x: Tensor, axis: int | None, size: int | None) -> tuple[Tensor, Tensor, Tensor]:
    values, inverse, counts = torch.unique(
        x, sorted=True, return_inverse=True, return_counts=True, dim=axis
    )
    return values, inverse, counts


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    if weights is not None and not weights.is_floating_point():
        weights = weights.to(torch.float64)  # torch.bincount weights must be floats
    length = builtins.max(minlength, int(x.max()) + 1 if x.numel() else 0)
    if x.ndim == 1:
        return torch.bincount(x, weights=weights, minlength=length)
    # torch.bincount is 1-D only: offset each row into its own block of `length` bins.
    rows = torch.arange(x.shape[0], device=x.device, dtype=x.dtype)[:, None]
    flat = (x + rows * length).reshape(-1)
    w = None if weights is None else weights.reshape(-1)
    counts = torch.bincount(flat, weights=w, minlength=x.shape[0] * length)
    return counts.reshape(x.shape[0], length)


def histogram(x: Tensor, bins: int, range: tuple[float, float] | None) -> tuple[Tensor, Tensor]:
    # torch.histogram is CPU-only, so bin by searching the edges instead.
    if range is None:
        lo, hi = (x.min(), x.max()) if x.numel() else (x.new_tensor(0.0), x.new_tensor(1.0))
        same = lo == hi
        lo, hi = torch.where(same, lo - 0.5, lo), torch.where(same, hi + 0.5, hi)
    else:
        lo, hi = x.new_tensor(range[0]), x.new_tensor(range[1])
    steps = torch.linspace(0, 1, bins + 1, dtype=x.dtype, device=x.device)
    edges = torch.cat([lo + (hi - lo) * steps[:-1], hi.reshape(1)])
    idx = torch.searchsorted(edges, x, right=True) - 1
    idx = torch.where(x == hi, bins - 1, idx)
    inside = (x >= lo) & (x <= hi)
    counts = torch.bincount(idx[inside], minlength=bins)
    return counts, edges


def corrcoef(x: Tensor) -> Tensor:
    return torch.corrcoef(x)
