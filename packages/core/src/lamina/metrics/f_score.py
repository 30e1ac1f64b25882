"""`FBetaScore` and `F1Score`: the weighted harmonic mean of precision and recall per class."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_number
from lamina.losses.loss import static_shape
from lamina.metrics.metric import Metric

AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """``(1 + beta**2) * P * R / (beta**2 * P + R)`` per class, or averaged over classes.

    Inputs are 2-D: ``(batch, num_classes)`` one-hot (or multi-hot) labels and scores.

    Args:
        average: None (one score per class), "micro" (one score from the pooled counts),
            "macro" (the mean of the class scores) or "weighted" (their mean weighted by
            each class's number of true labels).
        beta: > 0; recall counts `beta` times as much as precision.
        threshold: scores above it are positive; None makes each row's largest score
            the (only) positive one.
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.FBetaScore(beta=2.0, threshold=0.5)
        >>> m.update_state([[0, 1], [1, 0]], [[0.2, 0.8], [0.6, 0.4]])
        >>> m.result()  # [1., 1.]
    """

    _direction = "up"

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        if average not in AVERAGES:
            raise ValueError(
                f"`{where}`: argument `average` must be one of {list(AVERAGES)}. "
                f"Received: average={average!r}"
            )
        check_number(where, "beta", beta, low=0.0, open_low=True)
        if threshold is not None:
            check_number(where, "threshold", threshold, 0.0, 1.0, open_low=True)
        super().__init__(name=name, dtype=dtype)
        self.average = average
        self.beta = float(beta)
        self.threshold = None if threshold is None else float(threshold)
        self._built = False

    def _build(self, y_true_shape: tuple[Any, ...], y_pred_shape: tuple[Any, ...]) -> None:
        where = type(self).__name__
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(
                f"`{where}` expects 2-D inputs of shape (batch_size, num_classes). "
                f"Received: y_true.shape={y_true_shape}, y_pred.shape={y_pred_shape}"
            )
        num_classes = y_pred_shape[-1]
        if num_classes is None:
            raise ValueError(
                f"`{where}` needs a known number of classes (the last axis of `y_pred`). "
                f"Received: y_pred.shape={y_pred_shape}"
            )
        shape = () if self.average == "micro" else (int(num_classes),)
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        self.false_positives = self.add_variable(shape, "zeros", name="false_positives")
        self.false_negatives = self.add_variable(shape, "zeros", name="false_negatives")
        self.intermediate_weights = self.add_variable(
            shape, "zeros", name="intermediate_weights"
        )
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's per-class (or pooled, for "micro") weighted counts.

        Raises:
            ValueError: the inputs are not 2-D.
        """
        y_pred = ops.cast(ops.convert_to_tensor(y_pred), self.dtype)
        y_true = ops.cast(ops.convert_to_tensor(y_true), self.dtype)
        if not self._built:
            self._build(static_shape(y_true), static_shape(y_pred))
        elif len(y_pred.shape) != 2:
            raise ValueError(
                f"`{type(self).__name__}` expects 2-D inputs of shape (batch_size, "
                f"num_classes). Received: y_pred.shape={static_shape(y_pred)}"
            )
        if self.threshold is None:
            row_max = ops.max(y_pred, axis=-1, keepdims=True)
            # The largest score of each row is positive (unless the row is all zeros).
            positive = ops.logical_and(
                ops.greater_equal(y_pred, row_max), ops.greater(ops.abs(y_pred), 1e-9)
            )
        else:
            positive = ops.greater(y_pred, self.threshold)
        y_pred = ops.cast(positive, self.dtype)
        axis = None if self.average == "micro" else 0
        if sample_weight is not None:
            weight = ops.cast(ops.convert_to_tensor(sample_weight), self.dtype)
            weight = ops.reshape(weight, (-1, 1))
        else:
            weight = None

        def weighted_sum(values: Any) -> Any:
            if weight is not None:
                values = ops.multiply(values, weight)
            return ops.sum(values, axis=axis)

        not_pred, not_true = ops.subtract(1.0, y_pred), ops.subtract(1.0, y_true)
        self.true_positives.assign_add(weighted_sum(ops.multiply(y_pred, y_true)))
        self.false_positives.assign_add(weighted_sum(ops.multiply(y_pred, not_true)))
        self.false_negatives.assign_add(weighted_sum(ops.multiply(not_pred, y_true)))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self) -> Any:
        if not self._built:
            return ops.convert_to_tensor(0.0, self.dtype)
        eps = SETTINGS.epsilon
        tp = self.true_positives.value
        precision = ops.divide(tp, ops.add(ops.add(tp, self.false_positives.value), eps))
        recall = ops.divide(tp, ops.add(ops.add(tp, self.false_negatives.value), eps))
        b2 = self.beta * self.beta
        harmonic = ops.divide(
            ops.multiply(precision, recall),
            ops.add(ops.add(ops.multiply(precision, b2), recall), eps),
        )
        score = ops.multiply(harmonic, 1.0 + b2)
        if self.average == "weighted":
            support = self.intermediate_weights.value
            weights = ops.divide(support, ops.add(ops.sum(support), eps))
            return ops.sum(ops.multiply(score, weights))
        if self.average == "macro":
            return ops.mean(score)
        return score

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "average": self.average,
            "beta": self.beta,
            "threshold": self.threshold,
        }


class F1Score(FBetaScore):
    """The F1 score: `FBetaScore` with ``beta = 1``, the harmonic mean of P and R.

    Args:
        average: None, "micro", "macro" or "weighted" (see `FBetaScore`).
        threshold: scores above it are positive; None picks each row's largest score.
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.F1Score(threshold=0.5)
        >>> m.update_state([[0, 1], [1, 0]], [[0.2, 0.8], [0.4, 0.6]])
        >>> m.result()  # [0., 0.6667]
    """

    def __init__(
        self,
        average: str | None = None,
        threshold: float | None = None,
        name: str = "f1_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["beta"]
        return config
