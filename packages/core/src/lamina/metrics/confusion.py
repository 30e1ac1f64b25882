"""Threshold metrics: confusion counts, precision, recall, and the constrained variants.

Each keeps true/false positive/negative counts per threshold (see `confusion_utils`) and
reads its value off them in `result`.
"""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.losses._checks import check_int, check_number
from lamina.metrics.confusion_utils import (
    NEG_INF,
    check_thresholds,
    confusion_counts,
    evenly_spaced_thresholds,
)
from lamina.metrics.metric import Metric


def _check_optional_int(where: str, arg: str, value: Any, low: int) -> int | None:
    return None if value is None else check_int(where, arg, value, low=low)


class _ConfusionCount(Metric):
    """One confusion-matrix entry (`_key`), summed over batches, per threshold."""

    _key = "tp"

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._init_thresholds = thresholds
        self.thresholds = check_thresholds(type(self).__name__, thresholds, default=0.5)
        self.accumulator = self.add_variable(
            (len(self.thresholds),), "zeros", name="accumulator"
        )

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's weighted count (labels non-zero = positive, scores > threshold)."""
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, self.dtype, sample_weight=sample_weight
        )
        self.accumulator.assign_add(counts[self._key])

    def result(self) -> Any:
        value = self.accumulator.value
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "thresholds": self._init_thresholds}


class TruePositives(_ConfusionCount):
    """The weighted number of positive labels predicted positive.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); the result has
            one count per threshold (a scalar for a single one).
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.TruePositives()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> m.result()  # 2.0
    """

    _key = "tp"
    _direction = "up"


class FalsePositives(_ConfusionCount):
    """The weighted number of negative labels predicted positive (arguments as in
    `TruePositives`)."""

    _key = "fp"
    _direction = "down"


class TrueNegatives(_ConfusionCount):
    """The weighted number of negative labels predicted negative (arguments as in
    `TruePositives`)."""

    _key = "tn"
    _direction = "up"


class FalseNegatives(_ConfusionCount):
    """The weighted number of positive labels predicted negative (arguments as in
    `TruePositives`)."""

    _key = "fn"
    _direction = "down"


class _PrecisionRecall(Metric):
    """Shared state of `Precision` and `Recall`: TP plus FP or FN per threshold."""

    _other = "fp"
    _direction = "up"

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        super().__init__(name=name, dtype=dtype)
        self.top_k = _check_optional_int(where, "top_k", top_k, low=1)
        self.class_id = _check_optional_int(where, "class_id", class_id, low=0)
        self.init_thresholds = thresholds
        # With `top_k`, every score that survives the top-k filter counts as positive.
        default = 0.5 if top_k is None else NEG_INF
        if thresholds is None:
            self.thresholds = [default]
        else:
            self.thresholds = check_thresholds(where, thresholds, default)
        size = (len(self.thresholds),)
        self.true_positives = self.add_variable(size, "zeros", name="true_positives")
        other_name = "false_positives" if self._other == "fp" else "false_negatives"
        self._other_counts = self.add_variable(size, "zeros", name=other_name)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's weighted counts (labels non-zero = positive, scores > threshold)."""
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, self.dtype,
            top_k=self.top_k, class_id=self.class_id, sample_weight=sample_weight,
        )
        self.true_positives.assign_add(counts["tp"])
        self._other_counts.assign_add(counts[self._other])

    def result(self) -> Any:
        tp = self.true_positives.value
        value = ops.divide_no_nan(tp, ops.add(tp, self._other_counts.value))
        return value[0] if len(self.thresholds) == 1 else value

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "thresholds": self.init_thresholds,
            "top_k": self.top_k,
            "class_id": self.class_id,
        }


class Precision(_PrecisionRecall):
    """The fraction of positive predictions whose label is positive: ``TP / (TP + FP)``.

    Args:
        thresholds: a float or list of floats in [0, 1]; scores above one count as
            positive. Default 0.5, or, with `top_k`, every top-k score.
        top_k: only the `k` largest scores of each row can be positive.
        class_id: compute it for this class only (an index of the last axis).
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Precision()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> m.result()  # 0.6667
    """

    _other = "fp"

    @property
    def false_positives(self) -> Any:
        return self._other_counts


class Recall(_PrecisionRecall):
    """The fraction of positive labels predicted positive: ``TP / (TP + FN)``.

    Args:
        thresholds: as in `Precision`.
        top_k: as in `Precision`.
        class_id: as in `Precision`.
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Recall()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> m.result()  # 0.6667
    """

    _other = "fn"

    @property
    def false_negatives(self) -> Any:
        return self._other_counts


class _ConstrainedBase(Metric):
    """Counts at `num_thresholds` evenly spaced thresholds; the value of one rate is
    maximized subject to another reaching `value` (see the subclasses)."""

    _arg = "value"
    _direction = "up"

    def __init__(
        self,
        value: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        check_number(where, self._arg, value, 0.0, 1.0)
        check_int(where, "num_thresholds", num_thresholds, low=1)
        super().__init__(name=name, dtype=dtype)
        self.value = float(value)
        self.num_thresholds = int(num_thresholds)
        self.class_id = _check_optional_int(where, "class_id", class_id, low=0)
        self.thresholds = evenly_spaced_thresholds(self.num_thresholds)
        self._evenly = self.num_thresholds > 2
        size = (self.num_thresholds,)
        self.true_positives = self.add_variable(size, "zeros", name="true_positives")
        self.false_positives = self.add_variable(size, "zeros", name="false_positives")
        self.true_negatives = self.add_variable(size, "zeros", name="true_negatives")
        self.false_negatives = self.add_variable(size, "zeros", name="false_negatives")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's weighted counts at every threshold (scores must be in [0, 1])."""
        counts = confusion_counts(
            y_true, y_pred, self.thresholds, self.dtype, class_id=self.class_id,
            sample_weight=sample_weight, evenly_spaced=self._evenly,
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _rates(self) -> dict[str, Any]:
        tp, fp = self.true_positives.value, self.false_positives.value
        tn, fn = self.true_negatives.value, self.false_negatives.value
        recall = ops.divide_no_nan(tp, ops.add(tp, fn))
        return {
            "recall": recall,
            "sensitivity": recall,
            "specificity": ops.divide_no_nan(tn, ops.add(tn, fp)),
            "precision": ops.divide_no_nan(tp, ops.add(tp, fp)),
        }

    def _max_where(self, constrained: str, maximized: str) -> Any:
        """The largest `maximized` rate over thresholds where `constrained` >= `value`."""
        rates = self._rates()
        feasible = ops.greater_equal(rates[constrained], self.value)
        candidates = ops.where(feasible, rates[maximized], ops.zeros_like(rates[maximized]))
        return ops.max(candidates)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            self._arg: self.value,
            "num_thresholds": self.num_thresholds,
            "class_id": self.class_id,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        return cls(**config)


class SensitivityAtSpecificity(_ConstrainedBase):
    """The best sensitivity (recall) among thresholds whose specificity is >= `specificity`.

    Args:
        specificity: the required specificity, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried.
        class_id: compute it for this class only.
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.SensitivityAtSpecificity(0.5)
        >>> m.update_state([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])
        >>> m.result()  # 0.5
    """

    _arg = "specificity"

    def __init__(
        self,
        specificity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)
        self.specificity = self.value

    def result(self) -> Any:
        return self._max_where("specificity", "sensitivity")


class SpecificityAtSensitivity(_ConstrainedBase):
    """The best specificity among thresholds whose sensitivity is >= `sensitivity`.

    Args:
        sensitivity: the required sensitivity, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried.
        class_id: compute it for this class only.
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    _arg = "sensitivity"

    def __init__(
        self,
        sensitivity: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)
        self.sensitivity = self.value

    def result(self) -> Any:
        return self._max_where("sensitivity", "specificity")


class PrecisionAtRecall(_ConstrainedBase):
    """The best precision among thresholds whose recall is >= `recall`.

    Args:
        recall: the required recall, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried.
        class_id: compute it for this class only.
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    _arg = "recall"

    def __init__(
        self,
        recall: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)
        self.recall = self.value

    def result(self) -> Any:
        return self._max_where("recall", "precision")


class RecallAtPrecision(_ConstrainedBase):
    """The best recall among thresholds whose precision is >= `precision`.

    Args:
        precision: the required precision, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried.
        class_id: compute it for this class only.
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    _arg = "precision"

    def __init__(
        self,
        precision: float,
        num_thresholds: int = 200,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)
        self.precision = self.value

    def result(self) -> Any:
        return self._max_where("precision", "recall")
