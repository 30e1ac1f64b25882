"""Probabilistic metrics: the means of the cross-entropy, KL and Poisson losses."""

from __future__ import annotations

from typing import Any

from lamina.losses._checks import check_bool, check_int, check_number
from lamina.losses.probabilistic import (
    binary_crossentropy,
    categorical_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from lamina.metrics.reduction import BuiltinMeanMetric


class BinaryCrossentropy(BuiltinMeanMetric):
    """The mean binary cross-entropy between labels and predictions.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        from_logits: whether predictions are logits.
        label_smoothing: in [0, 1]; labels are squeezed towards 0.5.

    Example:
        >>> m = lamina.metrics.BinaryCrossentropy()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> m.result()  # 0.8159
    """

    def __init__(
        self,
        name: str = "binary_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
    ) -> None:
        where = type(self).__name__
        check_bool(where, "from_logits", from_logits)
        check_number(where, "label_smoothing", label_smoothing, low=0.0, high=1.0)
        super().__init__(
            binary_crossentropy, name, dtype, direction="down",
            from_logits=from_logits, label_smoothing=label_smoothing,
        )


class CategoricalCrossentropy(BuiltinMeanMetric):
    """The mean categorical cross-entropy between one-hot labels and predictions.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        from_logits: whether predictions are logits.
        label_smoothing: in [0, 1]; labels are mixed with the uniform distribution.
        axis: the class axis.
    """

    def __init__(
        self,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
    ) -> None:
        where = type(self).__name__
        check_bool(where, "from_logits", from_logits)
        check_number(where, "label_smoothing", label_smoothing, low=0.0, high=1.0)
        check_int(where, "axis", axis)
        super().__init__(
            categorical_crossentropy, name, dtype, direction="down",
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


class SparseCategoricalCrossentropy(BuiltinMeanMetric):
    """The mean categorical cross-entropy between integer labels and predictions.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
        from_logits: whether predictions are logits.
        axis: the class axis of the predictions.
    """

    def __init__(
        self,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
        from_logits: bool = False,
        axis: int = -1,
    ) -> None:
        where = type(self).__name__
        check_bool(where, "from_logits", from_logits)
        check_int(where, "axis", axis)
        super().__init__(
            sparse_categorical_crossentropy, name, dtype, direction="down",
            from_logits=from_logits, axis=axis,
        )


class KLDivergence(BuiltinMeanMetric):
    """The mean Kullback-Leibler divergence of predictions from labels.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(kl_divergence, name, dtype, direction="down")


class Poisson(BuiltinMeanMetric):
    """The mean Poisson loss ``y_pred - y_true * log(y_pred)``.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "poisson", dtype: Any = None) -> None:
        super().__init__(poisson, name, dtype, direction="down")
