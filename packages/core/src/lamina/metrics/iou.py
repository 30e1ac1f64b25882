"""Intersection-over-union metrics for segmentation: `IoU`, `MeanIoU`, `BinaryIoU` and the
one-hot variants. All accumulate a (num_classes, num_classes) confusion matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.losses._checks import check_bool, check_int, check_number
from lamina.losses.loss import broadcast_weights, squeeze_or_expand_to_same_rank, static_shape
from lamina.metrics.confusion_utils import confusion_matrix
from lamina.metrics.metric import Metric


def _check_class_ids(where: str, ids: Any, num_classes: int) -> list[int]:
    if not isinstance(ids, Sequence) or isinstance(ids, str) or not ids:
        raise TypeError(
            f"`{where}`: argument `target_class_ids` must be a non-empty list or tuple of "
            f"ints. Received: target_class_ids={ids!r}"
        )
    out = []
    for i in ids:
        check_int(where, "target_class_ids", i, low=0)
        if i >= num_classes:
            raise ValueError(
                f"`{where}`: argument `target_class_ids` must hold class ids in "
                f"[0, {num_classes}). Received: target_class_ids={list(ids)!r}"
            )
        out.append(int(i))
    return out


class IoU(Metric):
    """The mean, over `target_class_ids`, of ``TP / (TP + FP + FN)`` per class.

    Classes that never occur (zero denominator) are left out of the mean.

    Args:
        num_classes: the number of classes (the confusion matrix is square of this size).
        target_class_ids: the classes whose IoU is averaged.
        name: the metric's name.
        dtype: the dtype of the state and result.
        ignore_class: a label whose entries are left out (e.g. "void"), or None.
        sparse_y_true: whether labels are class ids (else one-hot along `axis`).
        sparse_y_pred: whether predictions are class ids (else scores along `axis`).
        axis: the class axis of one-hot labels or score predictions.

    Example:
        >>> m = lamina.metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
        >>> m.result()  # 0.3333
    """

    _direction = "up"

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        where = type(self).__name__
        check_int(where, "num_classes", num_classes, low=1)
        self.target_class_ids = _check_class_ids(where, target_class_ids, num_classes)
        if ignore_class is not None:
            check_int(where, "ignore_class", ignore_class)
        check_bool(where, "sparse_y_true", sparse_y_true)
        check_bool(where, "sparse_y_pred", sparse_y_pred)
        check_int(where, "axis", axis)
        super().__init__(name=name, dtype=dtype)
        self.num_classes = int(num_classes)
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.axis = int(axis)
        self.total_cm = self.add_variable(
            (self.num_classes, self.num_classes), "zeros", name="total_confusion_matrix"
        )

    def _labels(self, y_true: Any, y_pred: Any) -> tuple[Any, Any]:
        """Integer labels and predictions (class axes reduced by argmax)."""
        y_true = ops.convert_to_tensor(y_true)
        y_pred = ops.convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = ops.argmax(y_pred, axis=self.axis)
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return ops.cast(y_true, "int32"), ops.cast(y_pred, "int32")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the batch's (weighted) confusion matrix.

        Raises:
            ValueError: labels and predictions hold different numbers of entries, or the
                weights do not broadcast to the labels.
        """
        y_true, y_pred = self._labels(y_true, y_pred)
        if static_shape(y_true) != static_shape(y_pred) and None not in (
            static_shape(y_true) + static_shape(y_pred)
        ):
            raise ValueError(
                f"`{type(self).__name__}`: `y_true` and `y_pred` must have the same shape "
                f"(after argmax over one-hot inputs). Received: y_true.shape="
                f"{static_shape(y_true)}, y_pred.shape={static_shape(y_pred)}"
            )
        if sample_weight is None:
            weights = ops.ones(ops.shape(y_true), dtype=self.dtype)
        else:
            weights = ops.cast(ops.convert_to_tensor(sample_weight), self.dtype)
            weights, _ = squeeze_or_expand_to_same_rank(weights, y_true, expand_rank_1=False)
            weights = broadcast_weights(weights, ops.cast(y_true, self.dtype))
        y_true, y_pred = ops.reshape(y_true, (-1,)), ops.reshape(y_pred, (-1,))
        weights = ops.reshape(weights, (-1,))
        if self.ignore_class is not None:
            keep = ops.not_equal(y_true, self.ignore_class)
            weights = ops.where(keep, weights, ops.zeros_like(weights))
            y_true = ops.where(keep, y_true, ops.zeros_like(y_true))
            y_pred = ops.where(keep, y_pred, ops.zeros_like(y_pred))
        cm = confusion_matrix(y_true, y_pred, self.num_classes, weights, self.dtype)
        self.total_cm.assign_add(cm)

    def result(self) -> Any:
        cm = self.total_cm.value
        predicted = ops.sum(cm, axis=0)
        actual = ops.sum(cm, axis=1)
        tp = ops.diagonal(cm)
        union = ops.subtract(ops.add(predicted, actual), tp)
        ids = ops.convert_to_tensor(self.target_class_ids, "int32")
        tp, union = ops.take(tp, ids), ops.take(union, ids)
        present = ops.sum(ops.cast(ops.not_equal(union, 0.0), self.dtype))
        return ops.divide_no_nan(ops.sum(ops.divide_no_nan(tp, union)), present)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "num_classes": self.num_classes,
            "target_class_ids": list(self.target_class_ids),
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
            "axis": self.axis,
        }


class BinaryIoU(IoU):
    """IoU for binary labels and probability scores thresholded at `threshold`.

    Args:
        target_class_ids: which of the classes 0 and 1 are averaged.
        threshold: scores above it are class 1.
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
        >>> m.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
        >>> m.result()  # 0.3333
    """

    def __init__(
        self,
        target_class_ids: Sequence[int] = (0, 1),
        threshold: float = 0.5,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        check_number(type(self).__name__, "threshold", threshold)
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = float(threshold)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Threshold the scores, then add the batch's confusion matrix."""
        y_pred = ops.cast(ops.greater(ops.convert_to_tensor(y_pred), self.threshold), "int32")
        super().update_state(y_true, y_pred, sample_weight)

    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "target_class_ids": list(self.target_class_ids),
            "threshold": self.threshold,
        }


class MeanIoU(IoU):
    """The IoU averaged over all `num_classes` classes.

    Args:
        num_classes: the number of classes.
        name: the metric's name.
        dtype: the dtype of the state and result.
        ignore_class: a label whose entries are left out, or None.
        sparse_y_true: whether labels are class ids.
        sparse_y_pred: whether predictions are class ids.
        axis: the class axis of non-sparse inputs.

    Example:
        >>> m = lamina.metrics.MeanIoU(num_classes=2)
        >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
        >>> m.result()  # 0.3333
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_true: bool = True,
        sparse_y_pred: bool = True,
        axis: int = -1,
    ) -> None:
        check_int(type(self).__name__, "num_classes", num_classes, low=1)
        super().__init__(
            num_classes, list(range(num_classes)), name=name, dtype=dtype,
            ignore_class=ignore_class, sparse_y_true=sparse_y_true,
            sparse_y_pred=sparse_y_pred, axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["target_class_ids"]
        return config


class OneHotIoU(IoU):
    """`IoU` for one-hot labels (and, by default, score predictions).

    Args:
        num_classes: the number of classes.
        target_class_ids: the classes whose IoU is averaged.
        name: the metric's name.
        dtype: the dtype of the state and result.
        ignore_class: a label whose entries are left out, or None.
        sparse_y_pred: whether predictions are class ids (else scores).
        axis: the class axis.
    """

    def __init__(
        self,
        num_classes: int,
        target_class_ids: Sequence[int],
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
            sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` for one-hot labels (and, by default, score predictions).

    Args:
        num_classes: the number of classes.
        name: the metric's name.
        dtype: the dtype of the state and result.
        ignore_class: a label whose entries are left out, or None.
        sparse_y_pred: whether predictions are class ids (else scores).
        axis: the class axis.
    """

    def __init__(
        self,
        num_classes: int,
        name: str | None = None,
        dtype: Any = None,
        ignore_class: int | None = None,
        sparse_y_pred: bool = False,
        axis: int = -1,
    ) -> None:
        super().__init__(
            num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
            sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["sparse_y_true"]
        return config
