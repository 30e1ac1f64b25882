"""Correlation metrics: Pearson's r and Lin's concordance correlation coefficient.

Both are computed per sample along `axis` and then averaged over samples (and batches).
"""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_int
from lamina.losses.loss import true_and_pred
from lamina.metrics.reduction import BuiltinMeanMetric


def _centered(y_true: Any, y_pred: Any, axis: int) -> tuple[Any, Any]:
    y_true, y_pred = true_and_pred(y_true, y_pred)
    return (
        ops.subtract(y_true, ops.mean(y_true, axis=axis, keepdims=True)),
        ops.subtract(y_pred, ops.mean(y_pred, axis=axis, keepdims=True)),
    )


def pearson_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Pearson's correlation ``cov(t, p) / (std(t) * std(p))`` along `axis`.

    Args:
        y_true: the targets.
        y_pred: the predictions, of the same shape.
        axis: the axis the statistics run over.

    Returns:
        The inputs' shape without `axis`; constant rows give 0.

    Example:
        >>> lamina.metrics.pearson_correlation([[1.0, 2.0, 3.0]], [[2.0, 4.0, 7.0]])  # [0.9934]
    """
    check_int("pearson_correlation", "axis", axis)
    t, p = _centered(y_true, y_pred, axis)
    cov = ops.mean(ops.multiply(t, p), axis=axis)
    scale = ops.multiply(
        ops.sqrt(ops.mean(ops.square(t), axis=axis)), ops.sqrt(ops.mean(ops.square(p), axis=axis))
    )
    return ops.divide_no_nan(cov, scale)


def concordance_correlation(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Lin's concordance ``2 cov(t, p) / (var(t) + var(p) + (mean(t) - mean(p))**2)``.

    Unlike Pearson's r it also penalizes shifts and scalings: it is 1 only when the
    predictions equal the targets.

    Args:
        y_true: the targets.
        y_pred: the predictions, of the same shape.
        axis: the axis the statistics run over.

    Returns:
        The inputs' shape without `axis`.

    Example:
        >>> lamina.metrics.concordance_correlation([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])  # [1.]
    """
    check_int("concordance_correlation", "axis", axis)
    y_true, y_pred = true_and_pred(y_true, y_pred)
    shift = ops.subtract(ops.mean(y_true, axis=axis), ops.mean(y_pred, axis=axis))
    t, p = _centered(y_true, y_pred, axis)
    cov = ops.mean(ops.multiply(t, p), axis=axis)
    denom = ops.add(
        ops.add(ops.mean(ops.square(t), axis=axis), ops.mean(ops.square(p), axis=axis)),
        ops.square(shift),
    )
    return ops.divide(ops.multiply(cov, 2.0), ops.add(denom, SETTINGS.epsilon))


class PearsonCorrelation(BuiltinMeanMetric):
    """The mean over samples of `pearson_correlation` along `axis`.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        axis: the axis the correlation runs over.
    """

    def __init__(
        self, name: str = "pearson_correlation", dtype: Any = None, axis: int = -1
    ) -> None:
        check_int(type(self).__name__, "axis", axis)
        super().__init__(pearson_correlation, name, dtype, direction="up", axis=axis)


class ConcordanceCorrelation(BuiltinMeanMetric):
    """The mean over samples of `concordance_correlation` along `axis`.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        axis: the axis the coefficient runs over.
    """

    def __init__(
        self, name: str = "concordance_correlation", dtype: Any = None, axis: int = -1
    ) -> None:
        check_int(type(self).__name__, "axis", axis)
        super().__init__(concordance_correlation, name, dtype, direction="up", axis=axis)
