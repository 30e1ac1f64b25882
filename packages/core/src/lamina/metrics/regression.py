"""Regression metrics: error means (squared, absolute, percentage, log), RMSE, cosine
similarity, log-cosh and the coefficient of determination (`R2Score`)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.losses._checks import check_axis, check_int
from lamina.losses.loss import squeeze_or_expand_to_same_rank, static_shape, true_and_pred
from lamina.losses.regression import (
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from lamina.metrics.metric import Metric
from lamina.metrics.reduction import BuiltinMeanMetric, Mean


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The cosine of the angle between `y_true` and `y_pred` along `axis` (1 = aligned).

    Unlike the loss of the same name, this is not negated.
    """
    y_true, y_pred = true_and_pred(y_true, y_pred)
    y_true = ops.normalize(y_true, axis=axis)
    y_pred = ops.normalize(y_pred, axis=axis)
    return ops.sum(ops.multiply(y_true, y_pred), axis=axis)


class MeanSquaredError(BuiltinMeanMetric):
    """The mean of ``square(y_true - y_pred)`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.MeanSquaredError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> m.result()  # 0.25
    """

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(mean_squared_error, name, dtype, direction="down")


class MeanAbsoluteError(BuiltinMeanMetric):
    """The mean of ``abs(y_true - y_pred)`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_error, name, dtype, direction="down")


class MeanAbsolutePercentageError(BuiltinMeanMetric):
    """The mean of ``100 * abs((y_true - y_pred) / y_true)`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_percentage_error, name, dtype, direction="down")


class MeanSquaredLogarithmicError(BuiltinMeanMetric):
    """The mean of ``square(log(y_true + 1) - log(y_pred + 1))`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(mean_squared_logarithmic_error, name, dtype, direction="down")


class LogCoshError(BuiltinMeanMetric):
    """The mean of ``log(cosh(y_pred - y_true))`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "logcosh", dtype: Any = None) -> None:
        super().__init__(log_cosh, name, dtype, direction="down")


class CosineSimilarity(BuiltinMeanMetric):
    """The mean cosine similarity between labels and predictions along `axis`.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        axis: the feature axis.

    Example:
        >>> m = lamina.metrics.CosineSimilarity()
        >>> m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])
        >>> m.result()  # 0.5
    """

    def __init__(self, name: str = "cosine_similarity", dtype: Any = None, axis: int = -1) -> None:
        axis = check_axis(type(self).__name__, axis)
        super().__init__(cosine_similarity, name, dtype, direction="up", axis=axis)


class RootMeanSquaredError(Mean):
    """``sqrt(mean(square(y_true - y_pred)))`` over all elements seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.RootMeanSquaredError()
        >>> m.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
        >>> m.result()  # 0.5
    """

    _direction = "down"

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(  # type: ignore[override]
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        """Add the batch's (weighted) squared errors."""
        y_pred = ops.cast(ops.convert_to_tensor(y_pred), self.dtype)
        y_true = ops.cast(ops.convert_to_tensor(y_true), self.dtype)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        super().update_state(ops.square(ops.subtract(y_pred, y_true)), sample_weight)

    def result(self) -> Any:
        return ops.sqrt(super().result())

    def get_config(self) -> dict[str, Any]:
        return Metric.get_config(self)


AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination ``1 - SS_res / SS_tot``, accumulated over batches.

    Inputs are ``(batch, num_outputs)`` (or ``(batch,)`` for one output).

    Args:
        class_aggregation: None (one score per output), "uniform_average" (their mean)
            or "variance_weighted_average" (their mean weighted by each output's variance).
        num_regressors: the number of independent variables; > 0 gives the adjusted R^2
            ``1 - (1 - R^2) * (n - 1) / (n - p - 1)`` (left unadjusted while
            ``n - p - 1 <= 0``).
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.R2Score()
        >>> m.update_state([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])
        >>> m.result()  # 0.5714
    """

    _direction = "up"

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        if class_aggregation not in AGGREGATIONS:
            raise ValueError(
                f"`{where}`: argument `class_aggregation` must be one of "
                f"{list(AGGREGATIONS)}. Received: class_aggregation={class_aggregation!r}"
            )
        check_int(where, "num_regressors", num_regressors, low=0)
        super().__init__(name=name, dtype=dtype)
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.num_samples = self.add_variable((), "zeros", dtype="int32", name="num_samples")
        self._built = False

    def _build(self, y_true_shape: tuple[Any, ...]) -> None:
        num_outputs = y_true_shape[-1]
        if len(y_true_shape) != 2 or num_outputs is None:
            raise ValueError(
                f"`{type(self).__name__}` expects inputs of shape (batch_size, num_outputs) "
                f"with a known number of outputs. Received: y_true.shape={y_true_shape}"
            )
        shape = (int(num_outputs),)
        self.squared_sum = self.add_variable(shape, "zeros", name="squared_sum")
        self.sum = self.add_variable(shape, "zeros", name="sum")
        self.total_mse = self.add_variable(shape, "zeros", name="residual")
        self.count = self.add_variable(shape, "zeros", name="count")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's sums of labels, squared labels and squared residuals.

        Raises:
            ValueError: the inputs are not 1-D or 2-D, or their shapes differ.
        """
        y_true = ops.cast(ops.convert_to_tensor(y_true), self.dtype)
        y_pred = ops.cast(ops.convert_to_tensor(y_pred), self.dtype)
        if len(y_true.shape) == 1:
            y_true = ops.expand_dims(y_true, 1)
        if len(y_pred.shape) == 1:
            y_pred = ops.expand_dims(y_pred, 1)
        if static_shape(y_true) != static_shape(y_pred):
            raise ValueError(
                f"`{type(self).__name__}`: `y_true` and `y_pred` must have the same shape. "
                f"Received: y_true.shape={static_shape(y_true)}, "
                f"y_pred.shape={static_shape(y_pred)}"
            )
        if not self._built:
            self._build(static_shape(y_true))
        if sample_weight is None:
            weight = ops.ones_like(y_true)
        else:
            weight = ops.cast(ops.convert_to_tensor(sample_weight), self.dtype)
            if len(weight.shape) == 1:
                weight = ops.expand_dims(weight, 1)
            weight = ops.broadcast_to(weight, ops.shape(y_true))
        weighted = ops.multiply(y_true, weight)
        self.sum.assign_add(ops.sum(weighted, axis=0))
        self.squared_sum.assign_add(ops.sum(ops.multiply(y_true, weighted), axis=0))
        residual = ops.multiply(ops.square(ops.subtract(y_true, y_pred)), weight)
        self.total_mse.assign_add(ops.sum(residual, axis=0))
        self.count.assign_add(ops.sum(weight, axis=0))
        self.num_samples.assign_add(ops.cast(ops.shape(y_true)[0], "int32"))

    def result(self) -> Any:
        if not self._built:
            return ops.convert_to_tensor(0.0, self.dtype)
        mean = ops.divide_no_nan(self.sum.value, self.count.value)
        total = ops.subtract(self.squared_sum.value, ops.multiply(self.sum.value, mean))
        raw = ops.subtract(1.0, ops.divide(self.total_mse.value, total))
        raw = ops.where(ops.isinf(raw), ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            r2 = ops.mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = ops.divide(ops.sum(ops.multiply(total, raw)), ops.sum(total))
        else:
            r2 = raw
        if self.num_regressors == 0:
            return r2
        n = ops.cast(self.num_samples.value, self.dtype)
        dof = ops.subtract(ops.subtract(n, float(self.num_regressors)), 1.0)
        adjusted = ops.subtract(
            1.0, ops.divide_no_nan(ops.multiply(ops.subtract(1.0, r2), ops.subtract(n, 1.0)), dof)
        )
        return ops.where(ops.greater(dof, 0.0), adjusted, r2)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "class_aggregation": self.class_aggregation,
            "num_regressors": self.num_regressors,
        }

