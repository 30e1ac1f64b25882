"""Confusion-matrix accumulation shared by the threshold metrics, AUC and the IoU family.

Everything is written with `lamina.ops` and returns new values for `variable.assign_add`,
so it runs eagerly, under `jit` and inside a `StatelessScope` on every backend.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from lamina import ops
from lamina.losses.loss import squeeze_or_expand_to_same_rank, static_shape

NEG_INF = -1e10
"""The score given to predictions outside the top k: below every threshold, yet finite."""

EPSILON = 1e-7
"""How far the end thresholds of AUC-style metrics sit outside [0, 1]."""

CONFUSION_KEYS = ("tp", "fp", "tn", "fn")


def check_thresholds(where: str, thresholds: Any, default: float) -> list[float]:
    """`thresholds` (None, a float or a list of floats) as a list of floats in [0, 1].

    Raises:
        TypeError: a threshold is not a real number.
        ValueError: a threshold is outside [0, 1].
    """
    if thresholds is None:
        return [float(default)]
    items = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    if not items:
        raise ValueError(
            f"`{where}`: argument `thresholds` must not be empty. "
            f"Received: thresholds={thresholds!r}"
        )
    out = []
    for t in items:
        if isinstance(t, bool) or not isinstance(t, numbers.Real):
            raise TypeError(
                f"`{where}`: argument `thresholds` must be a float or a list of floats in "
                f"[0, 1]. Received: thresholds={thresholds!r}"
            )
        if not 0.0 <= float(t) <= 1.0:
            raise ValueError(
                f"`{where}`: argument `thresholds` must hold values in [0, 1]. "
                f"Received: thresholds={thresholds!r}"
            )
        out.append(float(t))
    return out


def evenly_spaced_thresholds(num_thresholds: int) -> list[float]:
    """``num_thresholds`` thresholds ``i / (n - 1)``, the ends nudged just outside [0, 1].

    The nudge makes a prediction of exactly 0 count as positive at the first threshold
    and one of exactly 1 as negative at the last, so the curve spans (0, 0) to (1, 1).
    """
    if num_thresholds == 1:
        return [0.5]
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - EPSILON, *inner, 1.0 + EPSILON]


def is_evenly_spaced(thresholds: Sequence[float]) -> bool:
    """Whether `thresholds` are what `evenly_spaced_thresholds` gives (bucketing applies)."""
    n = len(thresholds)
    if n < 3:
        return False
    return bool(np.allclose(thresholds, evenly_spaced_thresholds(n), rtol=0.0, atol=1e-6))


def filter_top_k(x: Any, k: int) -> Any:
    """`x` with every entry outside the `k` largest of its last axis set to `NEG_INF`."""
    num = static_shape(x)[-1]
    if num is None or k >= num:
        return x
    _, indices = ops.top_k(x, k, sorted=False)
    in_top = ops.sum(ops.one_hot(indices, num, dtype=ops.dtype(x)), axis=-2)
    return ops.where(ops.greater(in_top, 0.0), x, ops.full_like(x, NEG_INF))


def _flatten_labels(y: Any, num_labels: int | None) -> Any:
    """(N, L) with the labels as columns (`num_labels`), or (N, 1) with everything pooled."""
    if num_labels is None:
        return ops.reshape(y, (-1, 1))
    return ops.reshape(y, (-1, num_labels))


def _counts_by_comparison(
    pos: Any, neg: Any, y_pred: Any, thresholds: Sequence[float], dtype: str
) -> tuple[Any, Any, Any, Any]:
    """Weighted (T, L) counts by comparing every prediction with every threshold."""
    t = ops.reshape(ops.convert_to_tensor(list(thresholds), dtype), (-1, 1, 1))
    above = ops.cast(ops.greater(ops.expand_dims(y_pred, 0), t), dtype)  # (T, N, L)
    below = ops.subtract(1.0, above)
    pos, neg = ops.expand_dims(pos, 0), ops.expand_dims(neg, 0)
    return (
        ops.sum(ops.multiply(above, pos), axis=1),
        ops.sum(ops.multiply(above, neg), axis=1),
        ops.sum(ops.multiply(below, neg), axis=1),
        ops.sum(ops.multiply(below, pos), axis=1),
    )


def _counts_by_buckets(
    pos: Any, neg: Any, y_pred: Any, num_thresholds: int, dtype: str
) -> tuple[Any, Any, Any, Any]:
    """The same counts for evenly spaced thresholds in O(N + T) memory.

    A prediction `p` lies above thresholds ``0 .. ceil(p * (T - 1)) - 1`` (the first one
    sits below 0), so the weights are summed per bucket and then cumulated from the top.
    """
    num_labels = static_shape(y_pred)[-1] or 1
    scaled = ops.ceil(ops.multiply(y_pred, float(num_thresholds - 1)))
    bucket = ops.clip(ops.subtract(ops.cast(scaled, "int32"), 1), 0, num_thresholds - 1)
    # Predictions at or below the first threshold are negative everywhere: no bucket.
    counted = ops.cast(ops.greater(y_pred, -EPSILON), dtype)
    label_ids = ops.reshape(ops.arange(num_labels, dtype="int32"), (1, -1))
    ids = ops.reshape(ops.add(ops.multiply(bucket, num_labels), label_ids), (-1,))
    size = num_thresholds * num_labels

    def above_counts(weights: Any) -> Any:
        per_bucket = ops.segment_sum(
            ops.reshape(ops.multiply(weights, counted), (-1,)), ids, num_segments=size
        )
        per_bucket = ops.reshape(per_bucket, (num_thresholds, num_labels))
        return ops.flip(ops.cumsum(ops.flip(per_bucket, axis=0), axis=0), axis=0)

    tp, fp = above_counts(pos), above_counts(neg)
    fn = ops.subtract(ops.sum(pos, axis=0, keepdims=True), tp)
    tn = ops.subtract(ops.sum(neg, axis=0, keepdims=True), fp)
    return tp, fp, tn, fn


def confusion_counts(
    y_true: Any,
    y_pred: Any,
    thresholds: Sequence[float],
    dtype: str,
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
    multi_label: bool = False,
    label_weights: Any = None,
    evenly_spaced: bool = False,
) -> dict[str, Any]:
    """Weighted true/false positive/negative counts of one batch at every threshold.

    A label counts as positive when it is non-zero; a prediction when it is above the
    threshold.

    Args:
        y_true: labels, of `y_pred`'s shape (a trailing size-1 dim may differ).
        y_pred: scores in [0, 1].
        thresholds: the decision thresholds (T of them).
        dtype: the dtype of the counts.
        top_k: keep only the `k` largest scores of the last axis as candidates.
        class_id: count only this class (an index into the last axis).
        sample_weight: weights broadcastable to `y_pred`'s shape.
        multi_label: keep one count per label (last axis) instead of pooling them.
        label_weights: per-label weights (last axis), used when pooling.
        evenly_spaced: the thresholds are `evenly_spaced_thresholds(T)` (faster path).

    Returns:
        ``{"tp", "fp", "tn", "fn"}`` of shape (T,) or (T, num_labels) when `multi_label`.
    """
    y_pred = ops.cast(ops.convert_to_tensor(y_pred), dtype)
    y_true = ops.cast(ops.convert_to_tensor(y_true), dtype)
    y_pred, y_true = squeeze_or_expand_to_same_rank(y_pred, y_true)
    weights = ops.ones_like(y_pred)
    if sample_weight is not None:
        sample_weight = ops.cast(ops.convert_to_tensor(sample_weight), dtype)
        y_pred, sample_weight = squeeze_or_expand_to_same_rank(y_pred, sample_weight)
        w_rank, p_rank = len(sample_weight.shape), len(y_pred.shape)
        if w_rank < p_rank:  # one weight per sample: broadcast along the trailing axes
            sample_weight = ops.reshape(
                sample_weight, tuple(ops.shape(sample_weight)) + (1,) * (p_rank - w_rank)
            )
        weights = ops.multiply(weights, sample_weight)
    if top_k is not None:
        y_pred = filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id : class_id + 1]
        y_pred = y_pred[..., class_id : class_id + 1]
        weights = weights[..., class_id : class_id + 1]
    if label_weights is not None and not multi_label:
        weights = ops.multiply(weights, ops.cast(ops.convert_to_tensor(label_weights), dtype))
    num_labels = static_shape(y_pred)[-1] if multi_label else None
    y_pred = _flatten_labels(y_pred, num_labels)
    is_pos = ops.cast(ops.not_equal(_flatten_labels(y_true, num_labels), 0.0), dtype)
    weights = _flatten_labels(weights, num_labels)
    pos = ops.multiply(is_pos, weights)
    neg = ops.multiply(ops.subtract(1.0, is_pos), weights)
    if evenly_spaced:
        counts = _counts_by_buckets(pos, neg, y_pred, len(thresholds), dtype)
    else:
        counts = _counts_by_comparison(pos, neg, y_pred, thresholds, dtype)
    if not multi_label:
        counts = tuple(ops.reshape(c, (-1,)) for c in counts)
    return dict(zip(CONFUSION_KEYS, counts))


def confusion_matrix(y_true: Any, y_pred: Any, num_classes: int, weights: Any, dtype: str) -> Any:
    """The (num_classes, num_classes) matrix of summed `weights`: rows true, columns predicted.

    Args:
        y_true: flat integer labels.
        y_pred: flat integer predictions.
        num_classes: the number of classes; ids outside [0, num_classes) are dropped.
        weights: flat weights, one per entry.
        dtype: the matrix's dtype.
    """
    ids = ops.add(ops.multiply(ops.cast(y_true, "int32"), num_classes), ops.cast(y_pred, "int32"))
    valid = ops.logical_and(
        ops.logical_and(ops.greater_equal(y_true, 0), ops.less(y_true, num_classes)),
        ops.logical_and(ops.greater_equal(y_pred, 0), ops.less(y_pred, num_classes)),
    )
    ids = ops.where(valid, ids, ops.zeros_like(ids))
    weights = ops.where(valid, ops.cast(weights, dtype), ops.zeros_like(ops.cast(weights, dtype)))
    flat = ops.segment_sum(weights, ids, num_segments=num_classes * num_classes)
    return ops.reshape(flat, (num_classes, num_classes))
