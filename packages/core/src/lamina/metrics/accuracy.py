"""Accuracy metrics: exact, binary, categorical, sparse categorical and top-k."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_bool, check_int, check_number
from lamina.losses.loss import static_shape, true_and_pred
from lamina.metrics.reduction import BuiltinMeanMetric


def _as_float(matches: Any) -> Any:
    return ops.cast(matches, SETTINGS.floatx)


def accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where `y_pred` equals `y_true`, element-wise (labels of shape (batch, 1) and
    predictions of shape (batch,) line up)."""
    y_true, y_pred = true_and_pred(y_true, y_pred)
    return _as_float(ops.equal(y_true, y_pred))


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    """1.0 where ``y_pred > threshold`` matches the 0/1 `y_true`, element-wise.

    Args:
        y_true: 0/1 labels.
        y_pred: predicted probabilities (or scores compared with `threshold`).
        threshold: the decision threshold.

    Returns:
        `y_pred`'s shape (the metric classes average it).

    Example:
        >>> lamina.metrics.binary_accuracy([[1.0], [0.0]], [[0.9], [0.6]])  # [[1.], [0.]]
    """
    check_number("binary_accuracy", "threshold", threshold)
    y_true, y_pred = true_and_pred(y_true, y_pred)
    predicted = ops.cast(ops.greater(y_pred, threshold), ops.dtype(y_true))
    return _as_float(ops.equal(y_true, predicted))


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where the largest entry of `y_pred` is the class of one-hot `y_true`.

    Example:
        >>> lamina.metrics.categorical_accuracy([[0, 0, 1]], [[0.1, 0.9, 0.8]])  # [0.]
    """
    return sparse_categorical_accuracy(ops.argmax(y_true, axis=-1), y_pred)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    """1.0 where the largest entry of `y_pred` is at the integer label `y_true`.

    Args:
        y_true: integer labels, of `y_pred`'s shape without the last axis (a trailing
            size-1 dim is dropped).
        y_pred: scores or probabilities per class.

    Example:
        >>> lamina.metrics.sparse_categorical_accuracy([[2], [1]], [[0.1, 0.6, 0.3], [0, 1, 0]])
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and static_shape(y_true)[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    predicted = ops.argmax(y_pred, axis=-1)
    matches = ops.equal(ops.cast(y_true, "int32"), ops.cast(predicted, "int32"))
    return _as_float(matches)


def _top_k_matches(labels: Any, y_pred: Any, k: int) -> Any:
    """Whether each integer label is among the `k` largest scores of its row."""
    y_pred = ops.convert_to_tensor(y_pred)
    labels = ops.cast(labels, "int32")
    out_shape = ops.shape(labels)
    if len(y_pred.shape) > 2:
        y_pred = ops.reshape(y_pred, (-1, static_shape(y_pred)[-1]))
    if len(labels.shape) > 1:
        labels = ops.reshape(labels, (-1,))
    return ops.reshape(_as_float(ops.in_top_k(labels, y_pred, k)), out_shape)


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    """1.0 where the class of one-hot `y_true` is among the `k` largest entries of `y_pred`.

    Example:
        >>> lamina.metrics.top_k_categorical_accuracy([[0, 0, 1]], [[0.1, 0.9, 0.8]], k=2)  # [1.]
    """
    check_int("top_k_categorical_accuracy", "k", k, low=1)
    return _top_k_matches(ops.argmax(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(
    y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False
) -> Any:
    """1.0 where the integer label is among the `k` largest entries of `y_pred`.

    Args:
        y_true: integer labels (a trailing size-1 dim is dropped).
        y_pred: scores per class, or, with `from_sorted_ids`, the class ids already sorted
            by decreasing score (only the first `k` are read).
        k: how many top classes count as a hit.
        from_sorted_ids: whether `y_pred` holds sorted class ids instead of scores.

    Example:
        >>> lamina.metrics.sparse_top_k_categorical_accuracy([2], [[0.1, 0.9, 0.8]], k=2)  # [1.]
    """
    where = "sparse_top_k_categorical_accuracy"
    check_int(where, "k", k, low=1)
    check_bool(where, "from_sorted_ids", from_sorted_ids)
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and static_shape(y_true)[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    if not from_sorted_ids:
        return _top_k_matches(y_true, y_pred, k)
    top = ops.cast(y_pred[..., :k], "int32")
    hits = ops.equal(top, ops.expand_dims(ops.cast(y_true, "int32"), -1))
    return _as_float(ops.any(hits, axis=-1))


class Accuracy(BuiltinMeanMetric):
    """How often predictions equal labels exactly.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Accuracy()
        >>> m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
        >>> m.result()  # 0.75
    """

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name, dtype, direction="up")


class BinaryAccuracy(BuiltinMeanMetric):
    """How often thresholded predictions match binary labels (see `binary_accuracy`).

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        threshold: in (0, 1); predictions above it count as 1.
    """

    def __init__(
        self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5
    ) -> None:
        check_number(type(self).__name__, "threshold", threshold, 0.0, 1.0, True, True)
        super().__init__(binary_accuracy, name, dtype, direction="up", threshold=threshold)


class CategoricalAccuracy(BuiltinMeanMetric):
    """How often the top prediction matches one-hot labels (see `categorical_accuracy`)."""

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name, dtype, direction="up")


class SparseCategoricalAccuracy(BuiltinMeanMetric):
    """How often the top prediction matches integer labels."""

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_accuracy, name, dtype, direction="up")


class TopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often one-hot labels are among the top `k` predictions.

    Args:
        k: how many top classes count as a hit.
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(
        self, k: int = 5, name: str = "top_k_categorical_accuracy", dtype: Any = None
    ) -> None:
        check_int(type(self).__name__, "k", k, low=1)
        super().__init__(top_k_categorical_accuracy, name, dtype, direction="up", k=k)


class SparseTopKCategoricalAccuracy(BuiltinMeanMetric):
    """How often integer labels are among the top `k` predictions.

    Args:
        k: how many top classes count as a hit.
        name: the metric's name.
        dtype: the dtype of the state and result.
        from_sorted_ids: whether predictions are class ids sorted by decreasing score.
    """

    def __init__(
        self,
        k: int = 5,
        name: str = "sparse_top_k_categorical_accuracy",
        dtype: Any = None,
        from_sorted_ids: bool = False,
    ) -> None:
        check_int(type(self).__name__, "k", k, low=1)
        check_bool(type(self).__name__, "from_sorted_ids", from_sorted_ids)
        super().__init__(
            sparse_top_k_categorical_accuracy, name, dtype, direction="up",
            k=k, from_sorted_ids=from_sorted_ids,
        )

