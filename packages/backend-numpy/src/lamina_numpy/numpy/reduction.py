"""NumPy: reductions, statistics, cumulative ops, sorting and searching."""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from lamina.backend.kit import Tensor

Axes = tuple[int, ...] | None


@contextmanager
def _quiet() -> Iterator[None]:
    # All-NaN and empty slices give NaN on every backend; NumPy also warns.
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _same_dtype(fn: Callable[..., Any], x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`fn(x, ...)` as an array of `x`'s dtype (NumPy widens small ints and float16 sums)."""
    with _quiet():
        return np.asarray(fn(x, *args, **kwargs)).astype(x.dtype, copy=False)


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _same_dtype(np.sum, x, axis=axis, keepdims=keepdims)


def prod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _same_dtype(np.prod, x, axis=axis, keepdims=keepdims)


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _same_dtype(np.mean, x, axis=axis, keepdims=keepdims)


def max(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    if initial is None:
        return np.asarray(np.max(x, axis=axis, keepdims=keepdims))
    return np.asarray(np.max(x, axis=axis, keepdims=keepdims, initial=initial))


def min(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    if initial is None:
        return np.asarray(np.min(x, axis=axis, keepdims=keepdims))
    return np.asarray(np.min(x, axis=axis, keepdims=keepdims, initial=initial))


def all(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return np.asarray(np.all(x, axis=axis, keepdims=keepdims))


def any(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return np.asarray(np.any(x, axis=axis, keepdims=keepdims))


def var(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _same_dtype(np.var, x, axis=axis, keepdims=keepdims)


def quantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _same_dtype(np.quantile, x, q, axis=axis, method=method, keepdims=keepdims)


def nanquantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _same_dtype(np.nanquantile, x, q, axis=axis, method=method, keepdims=keepdims)


def argmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return np.asarray(np.argmax(x, axis=axis, keepdims=keepdims))


def argmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return np.asarray(np.argmin(x, axis=axis, keepdims=keepdims))


def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    return _same_dtype(np.cumsum, x, axis=axis)


def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    return _same_dtype(np.cumprod, x, axis=axis)


def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    return np.sort(x, axis=axis, kind="stable")


def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    return np.argsort(x, axis=axis, kind="stable")


# Overrides the core composite (a full sort): a partial sort (introselect) is linear.
def argpartition(x: Tensor, kth: int, axis: int = -1) -> Tensor:
    return np.argpartition(x, kth, axis=axis)


def searchsorted(sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
    return np.asarray(np.searchsorted(sorted_sequence, values, side=side))  # type: ignore[call-overload]


def sorted_unique(x: Tensor, axis: int | None, size: int | None) -> tuple[Tensor, Tensor, Tensor]:
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=axis)
    return values, inverse, counts


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    if x.ndim == 1:
        out = np.bincount(x, weights=weights, minlength=minlength)
        return out if weights is None else out.astype(weights.dtype)
    length = builtins.max(minlength, int(x.max()) + 1 if x.size else 0)
    rows = [
        np.bincount(r, weights=None if weights is None else weights[i], minlength=length)
        for i, r in enumerate(x)
    ]
    out = np.stack(rows) if rows else np.zeros((0, length), "int64")
    return out if weights is None else out.astype(weights.dtype)


def histogram(x: Tensor, bins: int, range: tuple[float, float] | None) -> tuple[Tensor, Tensor]:
    counts, edges = np.histogram(x, bins=bins, range=range)
    return counts, edges.astype(x.dtype)


def corrcoef(x: Tensor) -> Tensor:
    return _same_dtype(np.corrcoef, x)
