"""jax: reductions, statistics, cumulative ops, sorting and searching."""

from __future__ import annotations

import builtins
from typing import Any

import jax.numpy as jnp

from lamina.backend.kit import Tensor

Axes = tuple[int, ...] | None


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def prod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def max(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    return jnp.max(x, axis=axis, keepdims=keepdims, initial=initial)


def min(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    return jnp.min(x, axis=axis, keepdims=keepdims, initial=initial)


def all(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.all(x, axis=axis, keepdims=keepdims)


def any(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.any(x, axis=axis, keepdims=keepdims)


def var(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return jnp.var(x, axis=axis, keepdims=keepdims)


def _nearest(fn: Any, x: Tensor, q: Tensor, axis: Axes, keepdims: bool, skip_nan: bool) -> Tensor:
    # jnp's "nearest" rounds ties down; NumPy rounds the position half to even.
    low = fn(x, q, axis=axis, method="lower", keepdims=keepdims)
    high = fn(x, q, axis=axis, method="higher", keepdims=keepdims)
    valid = ~jnp.isnan(x) if skip_nan else jnp.ones(x.shape, bool)
    n = jnp.sum(valid, axis=axis, keepdims=keepdims)
    pos = q.reshape(q.shape + (1,) * n.ndim) * (n - 1)
    return jnp.where(jnp.round(pos) > jnp.floor(pos), high, low)


def quantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    if method == "nearest":
        return _nearest(jnp.quantile, x, q, axis, keepdims, False)
    return jnp.quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def nanquantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    if method == "nearest":
        return _nearest(jnp.nanquantile, x, q, axis, keepdims, True)
    return jnp.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims)


def argmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return jnp.argmax(x, axis=axis, keepdims=keepdims)


def argmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return jnp.argmin(x, axis=axis, keepdims=keepdims)


def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    return jnp.cumsum(x, axis=axis, dtype=x.dtype)


def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    return jnp.cumprod(x, axis=axis, dtype=x.dtype)


def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    return jnp.sort(x, axis=axis)


def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    return jnp.argsort(x, axis=axis, stable=True)


# Overrides the core composite (a full sort): a partial sort (introselect) is linear.
def argpartition(x: Tensor, kth: int, axis: int = -1) -> Tensor:
    return jnp.argpartition(x, kth, axis=axis)


def searchsorted(sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
    return jnp.searchsorted(sorted_sequence, values, side=side)


def sorted_unique(x: Tensor, axis: int | None, size: int | None) -> tuple[Tensor, Tensor, Tensor]:
    # `size` keeps the shapes static under jit (padded with the least value, count 0).
    values, inverse, counts = jnp.unique(
        x, return_inverse=True, return_counts=True, axis=axis, size=size
    )
    return values, inverse, counts


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    # The output length depends on the values, so this runs eagerly only.
    length = builtins.max(minlength, int(jnp.max(x)) + 1 if x.size else 0)
    if x.ndim == 1:
        return jnp.bincount(x, weights=weights, minlength=minlength, length=length)
    flat = (x + jnp.arange(x.shape[0], dtype=x.dtype)[:, None] * length).reshape(-1)
    w = None if weights is None else weights.reshape(-1)
    counts = jnp.bincount(flat, weights=w, length=x.shape[0] * length)
    return counts.reshape(x.shape[0], length)


def histogram(x: Tensor, bins: int, range: tuple[float, float] | None) -> tuple[Tensor, Tensor]:
    return jnp.histogram(x, bins=bins, range=range)


def corrcoef(x: Tensor) -> Tensor:
    return jnp.corrcoef(x)
