"""Regression losses: squared, absolute, percentage and log errors, Huber, log-cosh, cosine.

Each function returns one value per sample (the mean over the last axis, or the sum along
`axis` for the cosine similarity); each class wraps its function with a reduction.
"""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_axis, check_number
from lamina.losses.loss import BuiltinLoss, true_and_pred

_REDUCTION = "sum_over_batch_size"


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    """Mean of the squared errors over the last axis: ``mean(square(y_true - y_pred), -1)``.

    Args:
        y_true: the targets, of shape ``(batch, d0, .., dN)``.
        y_pred: the predictions, of the same shape.

    Returns:
        A tensor of shape ``(batch, d0, .., dN-1)``.

    Example:
        >>> lamina.losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]])  # [0.5]
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    return ops.mean(ops.square(ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    """Mean of the absolute errors over the last axis: ``mean(abs(y_true - y_pred), -1)``.

    Example:
        >>> lamina.losses.mean_absolute_error([[0.0, 1.0]], [[1.0, 1.0]])  # [0.5]
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    return ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    """``100 * mean(abs((y_true - y_pred) / y_true), -1)``; `|y_true|` is floored at epsilon.

    Example:
        >>> lamina.losses.mean_absolute_percentage_error([[2.0, 4.0]], [[1.0, 4.0]])  # [25.]
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    denom = ops.maximum(ops.abs(y_true), SETTINGS.epsilon)
    diff = ops.abs(ops.divide(ops.subtract(y_true, y_pred), denom))
    return ops.multiply(ops.mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    """``mean(square(log(y_pred + 1) - log(y_true + 1)), -1)``; values are floored at epsilon.

    Example:
        >>> lamina.losses.mean_squared_logarithmic_error([[0.0, 1.0]], [[1.0, 1.0]])
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    eps = SETTINGS.epsilon
    first = ops.log(ops.add(ops.maximum(y_pred, eps), 1.0))
    second = ops.log(ops.add(ops.maximum(y_true, eps), 1.0))
    return ops.mean(ops.square(ops.subtract(first, second)), axis=-1)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The negated cosine similarity along `axis`: -1 for aligned vectors, 0 if either is 0.

    Negated so that minimizing it aligns predictions with targets.

    Args:
        y_true: the targets.
        y_pred: the predictions.
        axis: the feature axis the similarity is computed along.

    Example:
        >>> lamina.losses.cosine_similarity([[0.0, 1.0]], [[0.0, 2.0]])  # [-1.]
    """
    check_axis("cosine_similarity", axis)
    y_true, y_pred = true_and_pred(y_true, y_pred)
    y_true = ops.normalize(y_true, axis=axis)
    y_pred = ops.normalize(y_pred, axis=axis)
    return ops.negative(ops.sum(ops.multiply(y_true, y_pred), axis=axis))


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Huber loss: quadratic for errors up to `delta`, linear beyond, averaged over the last axis.

    ``0.5 * e**2`` where ``|e| <= delta``, else ``delta * |e| - 0.5 * delta**2``.

    Args:
        y_true: the targets.
        y_pred: the predictions.
        delta: where the loss turns from quadratic to linear (>= 0).

    Example:
        >>> lamina.losses.huber([[0.0, 1.0]], [[0.6, 0.4]])  # [0.18]
    """
    delta = check_number("huber", "delta", delta, low=0.0)
    y_true, y_pred = true_and_pred(y_true, y_pred)
    error = ops.subtract(y_pred, y_true)
    abs_error = ops.abs(error)
    quadratic = ops.multiply(ops.square(error), 0.5)
    linear = ops.subtract(ops.multiply(abs_error, delta), 0.5 * delta * delta)
    return ops.mean(ops.where(ops.less_equal(abs_error, delta), quadratic, linear), axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """Mean over the last axis of ``log(cosh(y_pred - y_true))``, computed without overflow.

    Uses ``log(cosh(x)) = x + softplus(-2x) - log(2)``, which stays finite for large `x`.

    Example:
        >>> lamina.losses.log_cosh([[0.0, 1.0]], [[1.0, 1.0]])  # [0.2168]
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    x = ops.subtract(y_pred, y_true)
    value = ops.subtract(ops.add(x, ops.softplus(ops.multiply(x, -2.0))), math.log(2.0))
    return ops.mean(value, axis=-1)


class MeanSquaredError(BuiltinLoss):
    """The mean of squared errors between labels and predictions (see `mean_squared_error`).

    Args:
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.

    Example:
        >>> lamina.losses.MeanSquaredError()([[0.0, 1.0]], [[1.0, 1.0]])  # 0.5
    """

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "mean_squared_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(mean_squared_error, reduction, name, dtype)


class MeanAbsoluteError(BuiltinLoss):
    """The mean of absolute errors (see `mean_absolute_error`); arguments as in `Loss`."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "mean_absolute_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(mean_absolute_error, reduction, name, dtype)


class MeanAbsolutePercentageError(BuiltinLoss):
    """The mean absolute percentage error (see `mean_absolute_percentage_error`)."""

    def __init__(
        self,
        reduction: str | None = _REDUCTION,
        name: str = "mean_absolute_percentage_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(mean_absolute_percentage_error, reduction, name, dtype)


class MeanSquaredLogarithmicError(BuiltinLoss):
    """The mean squared logarithmic error (see `mean_squared_logarithmic_error`)."""

    def __init__(
        self,
        reduction: str | None = _REDUCTION,
        name: str = "mean_squared_logarithmic_error",
        dtype: Any = None,
    ) -> None:
        super().__init__(mean_squared_logarithmic_error, reduction, name, dtype)


class CosineSimilarity(BuiltinLoss):
    """The negated cosine similarity along `axis` (see `cosine_similarity`).

    Args:
        axis: the feature axis.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        axis: int = -1,
        reduction: str | None = _REDUCTION,
        name: str = "cosine_similarity",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            cosine_similarity, reduction, name, dtype, axis=check_axis(type(self).__name__, axis)
        )


class Huber(BuiltinLoss):
    """The Huber loss (see `huber`).

    Args:
        delta: where the loss turns from quadratic to linear.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        delta: float = 1.0,
        reduction: str | None = _REDUCTION,
        name: str = "huber_loss",
        dtype: Any = None,
    ) -> None:
        check_number(type(self).__name__, "delta", delta, low=0.0)
        super().__init__(huber, reduction, name, dtype, delta=delta)


class LogCosh(BuiltinLoss):
    """The log of the hyperbolic cosine of the error (see `log_cosh`)."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "log_cosh", dtype: Any = None
    ) -> None:
        super().__init__(log_cosh, reduction, name, dtype)
