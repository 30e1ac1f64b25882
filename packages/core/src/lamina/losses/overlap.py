"""Overlap losses for segmentation masks: Dice and Tversky."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_axis, check_number
from lamina.losses.loss import BuiltinLoss, true_and_pred

_REDUCTION = "sum_over_batch_size"


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Any:
    """Dice loss ``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred))``.

    Args:
        y_true: the target masks.
        y_pred: the predicted masks.
        axis: the axes the sums run over; None sums everything into one value.

    Returns:
        The loss with `axis` reduced (a scalar when `axis` is None).

    Example:
        >>> lamina.losses.dice([[1.0, 0.0]], [[1.0, 1.0]])  # 0.3333
    """
    axis = check_axis("dice", axis, allow_none=True)
    y_true, y_pred = true_and_pred(y_true, y_pred, squeeze=False)
    intersection = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    total = ops.add(ops.sum(y_true, axis=axis), ops.sum(y_pred, axis=axis))
    ratio = ops.divide(ops.multiply(intersection, 2.0), ops.add(total, SETTINGS.epsilon))
    return ops.subtract(1.0, ratio)


def tversky(
    y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None
) -> Any:
    """Tversky loss ``1 - TP / (TP + alpha * FP + beta * FN)`` (Salehi et al., 2017).

    With ``alpha = beta = 0.5`` it equals the Dice loss; a larger `alpha` penalizes false
    positives (``sum(y_pred * (1 - y_true))``) more, a larger `beta` false negatives
    (``sum((1 - y_pred) * y_true)``).

    Args:
        y_true: the target masks.
        y_pred: the predicted masks.
        alpha: the weight of false positives (>= 0).
        beta: the weight of false negatives (>= 0).
        axis: the axes the sums run over; None sums everything into one value.

    Example:
        >>> lamina.losses.tversky([[1.0, 0.0]], [[1.0, 1.0]], alpha=0.7, beta=0.3)  # 0.4118
    """
    check_number("tversky", "alpha", alpha, low=0.0)
    check_number("tversky", "beta", beta, low=0.0)
    axis = check_axis("tversky", axis, allow_none=True)
    y_true, y_pred = true_and_pred(y_true, y_pred, squeeze=False)
    tp = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    fp = ops.sum(ops.multiply(y_pred, ops.subtract(1.0, y_true)), axis=axis)
    fn = ops.sum(ops.multiply(ops.subtract(1.0, y_pred), y_true), axis=axis)
    denom = ops.add(ops.add(tp, ops.multiply(fp, alpha)), ops.multiply(fn, beta))
    return ops.subtract(1.0, ops.divide(tp, ops.add(denom, SETTINGS.epsilon)))


class Dice(BuiltinLoss):
    """The Dice loss (see `dice`).

    Args:
        reduction: as in `Loss`.
        name: the loss's name.
        axis: the axes the sums run over (None: everything).
        dtype: as in `Loss`.

    Example:
        >>> lamina.losses.Dice(axis=(1,))([[1.0, 0.0]], [[1.0, 1.0]])  # 0.3333
    """

    def __init__(
        self,
        reduction: str | None = _REDUCTION,
        name: str = "dice",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        axis = check_axis(type(self).__name__, axis, allow_none=True)
        super().__init__(dice, reduction, name, dtype, axis=axis)


class Tversky(BuiltinLoss):
    """The Tversky loss (see `tversky`).

    Args:
        alpha: the weight of false positives.
        beta: the weight of false negatives.
        reduction: as in `Loss`.
        name: the loss's name.
        axis: the axes the sums run over (None: everything).
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: str | None = _REDUCTION,
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        check_number(where, "alpha", alpha, low=0.0)
        check_number(where, "beta", beta, low=0.0)
        axis = check_axis(where, axis, allow_none=True)
        super().__init__(tversky, reduction, name, dtype, alpha=alpha, beta=beta, axis=axis)
