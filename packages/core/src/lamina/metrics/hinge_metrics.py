"""Hinge metrics: the means of the hinge, squared hinge and categorical hinge losses."""

from __future__ import annotations

from typing import Any

from lamina.losses.hinge import categorical_hinge, hinge, squared_hinge
from lamina.metrics.reduction import BuiltinMeanMetric


class Hinge(BuiltinMeanMetric):
    """The mean hinge loss (labels -1/1, or 0/1 which are converted).

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Hinge()
        >>> m.update_state([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])
        >>> m.result()  # 1.3
    """

    def __init__(self, name: str = "hinge", dtype: Any = None) -> None:
        super().__init__(hinge, name, dtype, direction="down")


class SquaredHinge(BuiltinMeanMetric):
    """The mean squared hinge loss.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(squared_hinge, name, dtype, direction="down")


class CategoricalHinge(BuiltinMeanMetric):
    """The mean categorical hinge loss (one-hot labels).

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.
    """

    def __init__(self, name: str = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(categorical_hinge, name, dtype, direction="down")
