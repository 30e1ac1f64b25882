"""tensorflow: reductions, statistics, cumulative ops, sorting and searching."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from lamina.backend.kit import Tensor

Axes = tuple[int, ...] | None


def _ax(axis: Axes) -> list[int] | None:
    return None if axis is None else list(axis)


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_sum(x, axis=_ax(axis), keepdims=keepdims)


def prod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_prod(x, axis=_ax(axis), keepdims=keepdims)


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_mean(x, axis=_ax(axis), keepdims=keepdims)


def max(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    out = tf.reduce_max(x, axis=_ax(axis), keepdims=keepdims)
    return out if initial is None else tf.maximum(out, tf.cast(initial, x.dtype))


def min(x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None) -> Tensor:
    out = tf.reduce_min(x, axis=_ax(axis), keepdims=keepdims)
    return out if initial is None else tf.minimum(out, tf.cast(initial, x.dtype))


def all(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_all(x, axis=_ax(axis), keepdims=keepdims)


def any(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.reduce_any(x, axis=_ax(axis), keepdims=keepdims)


def var(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return tf.math.reduce_variance(x, axis=_ax(axis), keepdims=keepdims)


def _to_last(x: Tensor, axis: Axes) -> tuple[Tensor, list[Any]]:
    """`x` with the `axis` dims flattened into one last dim, and the keepdims shape."""
    rank = x.shape.rank
    shape = tf.shape(x)  # dynamic, so unknown dims work inside tf.function
    dims = tuple(range(rank)) if axis is None else axis
    kept = [1 if i in dims else shape[i] for i in range(rank)]
    rest = [i for i in range(rank) if i not in dims]
    moved = tf.transpose(x, rest + list(dims))
    return tf.reshape(moved, [shape[i] for i in rest] + [-1]), kept


def _quantile(
    x: Tensor, q: Tensor, axis: Axes, method: str, keepdims: bool, skip_nan: bool
) -> Tensor:
    """Quantiles from a sort along the flattened `axis` (TF has no quantile op)."""
    flat, kept = _to_last(x, axis)
    nan = tf.math.is_nan(flat)
    # NaNs sort last as +inf; `n` counts the values a quantile may pick from.
    data = tf.sort(tf.where(nan, tf.constant(float("inf"), x.dtype), flat), axis=-1)
    length = tf.shape(flat)[-1]
    if skip_nan:
        n = tf.reduce_sum(tf.cast(~nan, x.dtype), axis=-1)
    else:
        n = tf.fill(tf.shape(flat)[:-1], tf.cast(length, x.dtype))
    q_flat = tf.reshape(q, [-1])
    pos = (n - 1)[..., None] * q_flat  # (..., Q)
    low, high = tf.floor(pos), tf.math.ceil(pos)

    def at(p: Tensor) -> Tensor:
        idx = tf.clip_by_value(tf.cast(p, tf.int32), 0, tf.maximum(length - 1, 0))
        return tf.gather(data, idx, axis=-1, batch_dims=len(data.shape) - 1)

    if method == "lower":
        out = at(low)
    elif method == "higher":
        out = at(high)
    elif method == "nearest":
        out = at(tf.round(pos))  # round half to even, as NumPy's "nearest"
    elif method == "midpoint":
        out = (at(low) + at(high)) / 2
    else:
        a, b = at(low), at(high)
        out = a + (b - a) * (pos - low)
    invalid = n < 1 if skip_nan else tf.reduce_any(nan, axis=-1)
    out = tf.where(invalid[..., None], tf.constant(float("nan"), x.dtype), out)
    rank = len(out.shape)
    out = tf.transpose(out, [rank - 1] + list(range(rank - 1)))  # quantiles first
    if keepdims:
        return tf.reshape(out, [-1] + kept) if q.shape.rank else tf.reshape(out, kept)
    return out if q.shape.rank else out[0]


def quantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(x, q, axis, method, keepdims, False)


def nanquantile(
    x: Tensor, q: Tensor, axis: Axes = None, method: str = "linear", keepdims: bool = False
) -> Tensor:
    return _quantile(x, q, axis, method, keepdims, True)


def _arg(fn: Callable[..., Tensor], x: Tensor, axis: int | None, keepdims: bool) -> Tensor:
    if axis is None:
        out = fn(tf.reshape(x, [-1]), axis=0, output_type=tf.int32)
        return tf.reshape(out, [1] * x.shape.rank) if keepdims else out
    out = fn(x, axis=axis, output_type=tf.int32)
    return tf.expand_dims(out, axis) if keepdims else out


def argmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _arg(tf.argmax, x, axis, keepdims)


def argmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _arg(tf.argmin, x, axis, keepdims)


def _along(x: Tensor, axis: int | None) -> tuple[Tensor, int]:
    return (tf.reshape(x, [-1]), 0) if axis is None else (x, axis)


def cumsum(x: Tensor, axis: int | None = None) -> Tensor:
    x, axis = _along(x, axis)
    return tf.cumsum(x, axis=axis)


def cumprod(x: Tensor, axis: int | None = None) -> Tensor:
    x, axis = _along(x, axis)
    return tf.math.cumprod(x, axis=axis)


def sort(x: Tensor, axis: int | None = -1) -> Tensor:
    x, axis = _along(x, axis)
    return tf.sort(x, axis=axis)


def argsort(x: Tensor, axis: int | None = -1) -> Tensor:
    x, axis = _along(x, axis)
    return tf.argsort(x, axis=axis, stable=True)


def searchsorted(sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
    # tf.searchsorted wants matching leading dims: search one row of all the values.
    out = tf.searchsorted(
        sorted_sequence[None, :], tf.reshape(values, [1, -1]), side=side, out_type=tf.int32
    )
    return tf.reshape(out, tf.shape(values))


def _sorted_rows(rows: Tensor) -> Tensor:
    """The permutation sorting 2-D `rows` lexicographically (stable sorts, last key first)."""
    perm = tf.range(tf.shape(rows)[0])
    for col in reversed(range(rows.shape[1])):
        keys = tf.gather(rows[:, col], perm)
        perm = tf.gather(perm, tf.argsort(keys, stable=True))
    return perm


def sorted_unique(x: Tensor, axis: int | None, size: int | None) -> tuple[Tensor, Tensor, Tensor]:
    # tf.unique keeps first-occurrence order; sort the uniques and remap the indices.
    if axis is None:
        y, idx = tf.unique(tf.reshape(x, [-1]), out_idx=tf.int32)
        order = tf.argsort(y, stable=True)
    else:
        perm_axes = [axis] + [i for i in range(x.shape.rank) if i != axis]
        moved = tf.transpose(x, perm_axes)
        rows = tf.reshape(moved, [moved.shape[0], -1])
        y, idx = tf.raw_ops.UniqueV2(x=rows, axis=tf.constant([0], tf.int64), out_idx=tf.int32)
        order = _sorted_rows(y)
    values = tf.gather(y, order)
    inverse = tf.gather(tf.math.invert_permutation(order), idx)
    counts = tf.math.bincount(inverse, minlength=tf.shape(values)[0], dtype=tf.int32)
    if axis is not None:
        values = tf.reshape(values, [-1] + moved.shape.as_list()[1:])
        back = [perm_axes.index(i) for i in range(x.shape.rank)]
        values = tf.transpose(values, back)
    return values, inverse, counts


def bincount(x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    dtype = tf.int32 if weights is None else weights.dtype
    return tf.math.bincount(
        tf.cast(x, tf.int32), weights=weights, minlength=minlength, axis=-1, dtype=dtype
    )


def histogram(x: Tensor, bins: int, range: tuple[float, float] | None) -> tuple[Tensor, Tensor]:
    # tf.histogram_fixed_width counts out-of-range values in the end bins; NumPy drops them.
    if range is None:
        lo, hi = tf.reduce_min(x), tf.reduce_max(x)
        same = tf.equal(lo, hi)
        lo, hi = tf.where(same, lo - 0.5, lo), tf.where(same, hi + 0.5, hi)
    else:
        lo, hi = tf.constant(range[0], x.dtype), tf.constant(range[1], x.dtype)
    steps = tf.linspace(tf.constant(0, x.dtype), 1, bins + 1)[:-1]
    edges = tf.concat([lo + (hi - lo) * steps, tf.reshape(hi, [1])], axis=0)
    idx = tf.searchsorted(edges, x, side="right", out_type=tf.int32) - 1
    idx = tf.where(tf.equal(x, hi), bins - 1, idx)
    inside = (x >= lo) & (x <= hi)
    counts = tf.math.bincount(
        tf.boolean_mask(idx, inside), minlength=bins, maxlength=bins, dtype=tf.int32
    )
    return counts, edges


def corrcoef(x: Tensor) -> Tensor:
    rows = x if x.shape.rank == 2 else x[None, :]
    centered = rows - tf.reduce_mean(rows, axis=1, keepdims=True)
    cov = tf.matmul(centered, centered, transpose_b=True)
    scale = tf.sqrt(tf.linalg.diag_part(cov))
    out = tf.clip_by_value(cov / scale[:, None] / scale[None, :], -1, 1)
    return out if x.shape.rank == 2 else out[0, 0]
