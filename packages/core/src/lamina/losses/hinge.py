"""Hinge losses for maximum-margin classifiers: hinge, squared hinge, categorical hinge."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.losses.loss import BuiltinLoss, true_and_pred

_REDUCTION = "sum_over_batch_size"


def convert_binary_labels_to_hinge(y_true: Any) -> Any:
    """Map {0, 1} labels to {-1, 1}; labels that are not all 0 or 1 are left as they are.

    Uses `where` rather than a Python branch so it also runs under `jit`.
    """
    is_binary = ops.all(ops.logical_or(ops.equal(y_true, 0.0), ops.equal(y_true, 1.0)))
    return ops.where(is_binary, ops.subtract(ops.multiply(y_true, 2.0), 1.0), y_true)


def _margins(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = true_and_pred(y_true, y_pred)
    y_true = convert_binary_labels_to_hinge(y_true)
    return ops.maximum(ops.subtract(1.0, ops.multiply(y_true, y_pred)), 0.0)


def hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(maximum(1 - y_true * y_pred, 0), -1)`` with labels in {-1, 1} (or {0, 1}).

    Args:
        y_true: labels, -1 or 1; binary 0/1 labels are converted to -1/1.
        y_pred: the predicted scores.

    Returns:
        `y_pred`'s shape without the last axis.

    Example:
        >>> lamina.losses.hinge([[1.0, 0.0]], [[0.5, 0.5]])  # [1.0]
    """
    return ops.mean(_margins(y_true, y_pred), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(maximum(1 - y_true * y_pred, 0)), -1)``, labels as in `hinge`.

    Example:
        >>> lamina.losses.squared_hinge([[1.0, 0.0]], [[0.5, 0.5]])  # [1.25]
    """
    return ops.mean(ops.square(_margins(y_true, y_pred)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis.

    Args:
        y_true: one-hot labels.
        y_pred: the predicted scores.

    Example:
        >>> lamina.losses.categorical_hinge([[0.0, 1.0]], [[0.3, 0.7]])  # [0.6]
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    pos = ops.sum(ops.multiply(y_true, y_pred), axis=-1)
    neg = ops.max(ops.multiply(ops.subtract(1.0, y_true), y_pred), axis=-1)
    return ops.maximum(ops.add(ops.subtract(neg, pos), 1.0), 0.0)


class Hinge(BuiltinLoss):
    """The hinge loss (see `hinge`); arguments as in `Loss`."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "hinge", dtype: Any = None
    ) -> None:
        super().__init__(hinge, reduction, name, dtype)


class SquaredHinge(BuiltinLoss):
    """The squared hinge loss (see `squared_hinge`); arguments as in `Loss`."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "squared_hinge", dtype: Any = None
    ) -> None:
        super().__init__(squared_hinge, reduction, name, dtype)


class CategoricalHinge(BuiltinLoss):
    """The categorical hinge loss (see `categorical_hinge`); arguments as in `Loss`."""

    def __init__(
        self,
        reduction: str | None = _REDUCTION,
        name: str = "categorical_hinge",
        dtype: Any = None,
    ) -> None:
        super().__init__(categorical_hinge, reduction, name, dtype)
