"""`AUC`: the area under the ROC or precision-recall curve, from thresholded counts.

The curve is sampled at `num_thresholds` thresholds; the area is a Riemann sum over
them (or, for PR with "interpolation", the exact area under the curve interpolated
between the points as Davis & Goadrich, 2006, describe).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.losses._checks import check_bool, check_int
from lamina.metrics.confusion_utils import (
    EPSILON,
    check_thresholds,
    confusion_counts,
    evenly_spaced_thresholds,
    is_evenly_spaced,
)
from lamina.metrics.metric import Metric

CURVES = ("ROC", "PR")
SUMMATION_METHODS = ("interpolation", "minoring", "majoring")


def _choice(where: str, arg: str, value: Any, options: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value.upper() not in {o.upper() for o in options}:
        raise ValueError(
            f"`{where}`: argument `{arg}` must be one of {list(options)}. "
            f"Received: {arg}={value!r}"
        )
    return next(o for o in options if o.upper() == value.upper())


class AUC(Metric):
    """The area under the ROC curve (TPR against FPR) or the PR curve (precision against
    recall), accumulated over batches.

    Args:
        num_thresholds: how many thresholds sample the curve (> 1); more is closer to the
            exact area. Ignored when `thresholds` is given.
        curve: "ROC" or "PR".
        summation_method: "interpolation" (trapezoids; for PR the exact interpolated
            area), "minoring" (lower sums) or "majoring" (upper sums).
        name: the metric's name.
        dtype: the dtype of the state and result.
        thresholds: explicit thresholds in [0, 1]; the end points just outside [0, 1] are
            added.
        multi_label: keep one curve per label (last axis) and average their areas,
            instead of pooling all labels into one curve.
        num_labels: the number of labels with `multi_label` (read from the first batch
            when None).
        label_weights: per-label weights: of the counts when pooling, of the per-label
            areas with `multi_label`.
        from_logits: whether the predictions are logits (a sigmoid is applied).

    Example:
        >>> m = lamina.metrics.AUC(num_thresholds=3)
        >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
        >>> m.result()  # 0.75
    """

    _direction = "up"

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        where = type(self).__name__
        self.curve = _choice(where, "curve", curve, CURVES)
        self.summation_method = _choice(
            where, "summation_method", summation_method, SUMMATION_METHODS
        )
        check_bool(where, "multi_label", multi_label)
        check_bool(where, "from_logits", from_logits)
        if thresholds is not None:
            inner = sorted(check_thresholds(where, thresholds, 0.5))
            self._thresholds = [0.0 - EPSILON, *inner, 1.0 + EPSILON]
            self.num_thresholds = len(self._thresholds)
        else:
            check_int(where, "num_thresholds", num_thresholds, low=2)
            self.num_thresholds = int(num_thresholds)
            self._thresholds = evenly_spaced_thresholds(self.num_thresholds)
        self._evenly = is_evenly_spaced(self._thresholds)
        if num_labels is not None:
            check_int(where, "num_labels", num_labels, low=1)
        if label_weights is not None:
            weights = np.asarray(label_weights, dtype="float64")
            if weights.ndim != 1 or (weights < 0).any():
                raise ValueError(
                    f"`{where}`: argument `label_weights` must be a 1-D list of non-negative "
                    f"weights. Received: label_weights={label_weights!r}"
                )
            if num_labels is not None and len(weights) != num_labels:
                raise ValueError(
                    f"`{where}`: argument `label_weights` must have `num_labels` "
                    f"({num_labels}) entries. Received: {len(weights)} entries"
                )
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else list(
            np.asarray(label_weights, dtype="float64").tolist()
        )
        self._from_logits = from_logits
        self._built = False
        if not multi_label or num_labels is not None:
            self._build(num_labels if multi_label else None)

    @property
    def thresholds(self) -> list[float]:
        """The thresholds, end points included."""
        return list(self._thresholds)

    def _build(self, num_labels: int | None) -> None:
        shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds, num_labels)
        self.num_labels = num_labels if self.multi_label else self.num_labels
        self.true_positives = self.add_variable(shape, "zeros", name="true_positives")
        self.false_positives = self.add_variable(shape, "zeros", name="false_positives")
        self.true_negatives = self.add_variable(shape, "zeros", name="true_negatives")
        self.false_negatives = self.add_variable(shape, "zeros", name="false_negatives")
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's weighted counts at every threshold.

        Raises:
            ValueError: with `multi_label`, the predictions' last axis does not match
                `num_labels`.
        """
        y_pred = ops.convert_to_tensor(y_pred)
        if self.multi_label:
            labels = y_pred.shape[-1] if len(y_pred.shape) else None
            if not self._built:
                if labels is None:
                    raise ValueError(
                        f"`{type(self).__name__}` with multi_label=True needs predictions "
                        "of shape (batch, num_labels). "
                        f"Received: y_pred.shape={tuple(y_pred.shape)}"
                    )
                self._build(int(labels))
            elif labels != self.num_labels:
                raise ValueError(
                    f"`{type(self).__name__}`: the predictions' last axis must have "
                    f"num_labels={self.num_labels} entries. "
                    f"Received: y_pred.shape={tuple(y_pred.shape)}"
                )
        if self._from_logits:
            y_pred = ops.sigmoid(y_pred)
        counts = confusion_counts(
            y_true, y_pred, self._thresholds, self.dtype, sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
            evenly_spaced=self._evenly,
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _average_labels(self, per_threshold: Any) -> Any:
        """Sum the terms over thresholds; with `multi_label`, average the labels' areas."""
        if not self.multi_label:
            return ops.sum(per_threshold)
        by_label = ops.sum(per_threshold, axis=0)
        if self.label_weights is None:
            return ops.mean(by_label)
        weights = ops.convert_to_tensor(self.label_weights, self.dtype)
        return ops.divide_no_nan(ops.sum(ops.multiply(by_label, weights)), ops.sum(weights))

    def _interpolated_pr_auc(self) -> Any:
        """Exact area under the PR curve interpolated between consecutive thresholds.

        Between two thresholds, TP is linear in P = TP + FP, so precision is
        ``slope + intercept / P`` and its integral over recall has a closed form.
        """
        tp, fp = self.true_positives.value, self.false_positives.value
        fn = self.false_negatives.value
        n = self.num_thresholds
        d_tp = ops.subtract(tp[: n - 1], tp[1:])
        p = ops.add(tp, fp)
        d_p = ops.subtract(p[: n - 1], p[1:])
        slope = ops.divide_no_nan(d_tp, ops.maximum(d_p, 0.0))
        intercept = ops.subtract(tp[1:], ops.multiply(slope, p[1:]))
        both_positive = ops.logical_and(ops.greater(p[: n - 1], 0.0), ops.greater(p[1:], 0.0))
        ratio = ops.where(
            both_positive,
            ops.divide_no_nan(p[: n - 1], ops.maximum(p[1:], 0.0)),
            ops.ones_like(p[1:]),
        )
        term = ops.multiply(slope, ops.add(d_tp, ops.multiply(intercept, ops.log(ratio))))
        increments = ops.divide_no_nan(term, ops.maximum(ops.add(tp[1:], fn[1:]), 0.0))
        return self._average_labels(increments)

    def result(self) -> Any:
        if not self._built:
            return ops.convert_to_tensor(0.0, self.dtype)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr_auc()
        tp, fp = self.true_positives.value, self.false_positives.value
        tn, fn = self.true_negatives.value, self.false_negatives.value
        recall = ops.divide_no_nan(tp, ops.add(tp, fn))
        if self.curve == "ROC":
            x, y = ops.divide_no_nan(fp, ops.add(fp, tn)), recall
        else:
            x, y = recall, ops.divide_no_nan(tp, ops.add(tp, fp))
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = ops.multiply(ops.add(y[: n - 1], y[1:]), 0.5)
        elif self.summation_method == "minoring":
            heights = ops.minimum(y[: n - 1], y[1:])
        else:
            heights = ops.maximum(y[: n - 1], y[1:])
        return self._average_labels(ops.multiply(ops.subtract(x[: n - 1], x[1:]), heights))

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self._from_logits,
        }
        if not self._evenly:  # evenly spaced ones are rebuilt from `num_thresholds`
            config["thresholds"] = self._thresholds[1:-1]
        return config
