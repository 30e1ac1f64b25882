"""array API: reductions, statistics, cumulative ops, sorting and searching.

The standard reduces with `sum`, `prod`, `max`, `min`, `mean`, `var`, `std`, `all`, `any`,
sorts stably and searches sorted arrays; quantiles, NaN-aware reductions, `unique` along
an axis, `bincount` and `histogram` are written here on those.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from lamina.backend.kit import Tensor
from lamina_array_api._xp import (
    const,
    index_grid,
    one_hot_rows,
    quiet,
    scatter_rows,
    xp,
)

__all__ = [
    "all",
    "any",
    "argmax",
    "argmin",
    "argsort",
    "bincount",
    "corrcoef",
    "cumprod",
    "cumsum",
    "histogram",
    "max",
    "mean",
    "min",
    "nanquantile",
    "prod",
    "quantile",
    "searchsorted",
    "sort",
    "sum",
    "sorted_unique",
    "var",
]

Axes = tuple[int, ...] | None


def _inexact(x: Tensor) -> bool:
    return bool(xp.isdtype(x.dtype, ("real floating", "complex floating")))


@quiet
def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    # `dtype=` keeps small ints small (the standard widens them to the default int).
    return xp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@quiet
def prod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return xp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@quiet
def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    if _inexact(x):
        return xp.mean(x, axis=axis, keepdims=keepdims)
    return xp.astype(xp.mean(xp.astype(x, xp.float64), axis=axis, keepdims=keepdims), x.dtype)


def _with_initial(fn: Any, x: Tensor, axis: Axes, keepdims: bool, initial: Any) -> Tensor:
    """`fn` over `axis`, with `initial` joined to every reduced slice (NumPy's `initial`)."""
    axes = tuple(range(x.ndim)) if axis is None else axis
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = xp.permute_dims(x, (*kept, *axes))
    flat = xp.reshape(moved, (*moved.shape[: len(kept)], -1))
    start = xp.full((*flat.shape[:-1], 1), initial, dtype=x.dtype)
    out = fn(xp.concat([flat, start], axis=-1), axis=-1)
    if keepdims:
        out = xp.reshape(out, tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)))
    return out


def max(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    if initial is None:
        return xp.max(x, axis=axis, keepdims=keepdims)
    return _with_initial(xp.max, x, axis, keepdims, initial)


def min(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    if initial is None:
        return xp.min(x, axis=axis, keepdims=keepdims)
    return _with_initial(xp.min, x, axis, keepdims, initial)


def all(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return xp.all(x, axis=axis, keepdims=keepdims)


def any(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return xp.any(x, axis=axis, keepdims=keepdims)


@quiet
def var(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    if _inexact(x):
        return xp.var(x, axis=axis, keepdims=keepdims)
    return xp.astype(xp.var(xp.astype(x, xp.float64), axis=axis, keepdims=keepdims), x.dtype)


def _to_last(x: Tensor, axis: Axes) -> tuple[Tensor, list[int]]:
    """`x` with the reduced axes flattened into one last axis, and the kept axes."""
    axes = tuple(range(x.ndim)) if axis is None else axis
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = xp.permute_dims(x, (*kept, *axes))
    return xp.reshape(moved, (*moved.shape[: len(kept)], -1)), kept


@quiet
def _quantile(
    x: Tensor, q: Tensor, axis: Axes, method: str, keepdims: bool, skip_nan: bool
) -> Tensor:
    flat, _ = _to_last(x, axis)
    nan = xp.isnan(flat)
    ordered = xp.sort(flat, axis=-1)  # NaNs sort last
    length = flat.shape[-1]
    count = xp.sum(xp.astype(~nan, xp.int64), axis=-1) if skip_nan else None
    last = (count if count is not None else xp.asarray(length, dtype=xp.int64)) - 1
    qs = xp.reshape(xp.astype(q, xp.float64), (-1,))
    outs = []
    for i in range(qs.shape[0]):
        top = xp.maximum(last, xp.asarray(0, dtype=xp.int64))
        pos = xp.broadcast_to(qs[i] * xp.astype(top, xp.float64), ordered.shape[:-1])
        lo = xp.floor(pos)
        hi = xp.ceil(pos)
        if method == "lower":
            pos = lo
        elif method == "higher":
            pos = hi
        elif method == "nearest":
            pos = xp.round(pos)
        idx_lo = xp.astype(xp.floor(pos), xp.int64)
        idx_hi = xp.astype(xp.ceil(pos), xp.int64)
        a = xp.take_along_axis(ordered, xp.clip(idx_lo, 0, length - 1)[..., None], axis=-1)
        b = xp.take_along_axis(ordered, xp.clip(idx_hi, 0, length - 1)[..., None], axis=-1)
        a, b = a[..., 0], b[..., 0]
        if method == "midpoint":
            value = (a + b) / const(a, 2)
        elif method == "linear":
            frac = xp.astype(pos - xp.floor(pos), a.dtype)
            value = a + (b - a) * frac
            value = xp.where(frac == 0, a, value)
        else:
            value = a
        empty = xp.broadcast_to(last < 0, value.shape)
        bad = empty if skip_nan else xp.any(nan, axis=-1) | empty
        outs.append(xp.where(bad, const(value, math.nan), value))
    out = xp.stack(outs, axis=0)
    if keepdims:
        axes = tuple(range(x.ndim)) if axis is None else axis
        shape = tuple(1 if a in axes else x.shape[a] for a in range(x.ndim))
        out = xp.reshape(out, (qs.shape[0], *shape))
    if q.ndim == 0:
        out = out[0, ...]
    return xp.astype(out, x.dtype)


def quantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(x, q, axis, method, keepdims, False)


def nanquantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(x, q, axis, method, keepdims, True)


def _nan_as(x: Tensor, value: float) -> Tensor:
    return xp.where(xp.isnan(x), const(x, value), x)


def argmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return xp.argmax(x, axis=axis, keepdims=keepdims)


def argmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return xp.argmin(x, axis=axis, keepdims=keepdims)


def _flat(x: Tensor, axis: int | None) -> tuple[Tensor, int]:
    return (xp.reshape(x, (-1,)), 0) if axis is None else (x, axis)


@quiet
def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    y, ax = _flat(x, axis)
    return xp.cumulative_sum(y, axis=ax, dtype=y.dtype)


@quiet
def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    y, ax = _flat(x, axis)
    return xp.cumulative_prod(y, axis=ax, dtype=y.dtype)


def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    y, ax = _flat(x, axis)
    return xp.sort(y, axis=ax, stable=True)


def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    y, ax = _flat(x, axis)
    return xp.argsort(y, axis=ax, stable=True)


def searchsorted(sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
    return xp.searchsorted(sorted_sequence, values, side="right" if side == "right" else "left")


def _unique_rows(rows: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Sorted distinct rows of 2-D `rows`, each row's group, and the group sizes."""
    n = rows.shape[0]
    order = index_grid(n)
    for col in range(rows.shape[1] - 1, -1, -1):  # lexicographic: last key first
        keys = xp.take(rows[:, col], order, axis=0)
        order = xp.take(order, xp.argsort(keys, stable=True), axis=0)
    ordered = xp.take(rows, order, axis=0)
    if n == 0:
        empty = xp.zeros((0,), dtype=xp.int64)
        return ordered, empty, empty
    new = xp.any(ordered[1:, :] != ordered[:-1, :], axis=1)
    starts = xp.concat([xp.asarray([True]), new])
    group_sorted = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
    groups = int(group_sorted[-1]) + 1
    first = xp.nonzero(starts)[0]
    inverse = scatter_rows(order, group_sorted, n)  # undo the sort
    counts = xp.sum(one_hot_rows(group_sorted, groups, xp.int64), axis=1)
    return xp.take(ordered, first, axis=0), inverse, counts


def sorted_unique(x: Tensor, axis: int | None, size: int | None) -> tuple[Tensor, Tensor, Tensor]:
    if axis is None:
        found = xp.unique_all(xp.reshape(x, (-1,)))
        return found.values, found.inverse_indices, found.counts
    moved = xp.moveaxis(x, axis, 0)
    rows, inverse, counts = _unique_rows(xp.reshape(moved, (moved.shape[0], -1)))
    values = xp.moveaxis(xp.reshape(rows, (rows.shape[0], *moved.shape[1:])), 0, axis)
    return values, inverse, counts


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    top = int(xp.max(x)) + 1 if math.prod(x.shape) else 0
    length = builtins.max(minlength, top)
    dtype = xp.int64 if weights is None else weights.dtype
    w = xp.ones(x.shape, dtype=dtype) if weights is None else weights
    if x.ndim == 1:
        return one_hot_rows(x, length, dtype) @ w
    hits = xp.astype(x[:, None, :] == index_grid(length)[None, :, None], dtype)
    return xp.sum(hits * w[:, None, :], axis=-1, dtype=dtype)


@quiet
def histogram(x: Tensor, bins: int, range: tuple[float, float] | None) -> tuple[Tensor, Tensor]:
    if range is None:
        lo, hi = (float(xp.min(x)), float(xp.max(x))) if math.prod(x.shape) else (0.0, 1.0)
    else:
        lo, hi = float(range[0]), float(range[1])
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = xp.linspace(lo, hi, bins + 1, dtype=xp.float64)
    wide = xp.astype(x, xp.float64)
    index = xp.searchsorted(edges, wide, side="right") - 1
    index = xp.where(wide == hi, xp.asarray(bins - 1, dtype=index.dtype), index)
    inside = (wide >= lo) & (wide <= hi)
    index = xp.where(inside, index, xp.asarray(-1, dtype=index.dtype))
    counts = xp.sum(one_hot_rows(index, bins, xp.int64), axis=1)
    return counts, xp.astype(edges, x.dtype)


@quiet
def corrcoef(x: Tensor) -> Tensor:
    rows = x[None, :] if x.ndim == 1 else x
    centred = rows - xp.mean(rows, axis=1, keepdims=True)
    cov = centred @ xp.matrix_transpose(xp.conj(centred) if _complex(x) else centred)
    d = xp.sqrt(xp.real(xp.linalg.diagonal(cov)) if _complex(x) else xp.linalg.diagonal(cov))
    out = cov / d[:, None] / d[None, :]
    if not _complex(x):
        out = xp.clip(out, -1.0, 1.0)
    return out[0, 0] if x.ndim == 1 else out


def _complex(x: Tensor) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))
