"""Metrics (``lamina.metrics``): stateful `Metric` classes and the per-sample functions.

Metric state lives in non-trainable variables updated with `lamina.ops`, so every metric
runs eagerly, inside compiled steps and through the stateless API on every backend.
`get` turns a name, a config or a callable into a metric, as `compile(metrics=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.losses.hinge import categorical_hinge as categorical_hinge
from lamina.losses.hinge import hinge as hinge
from lamina.losses.hinge import squared_hinge as squared_hinge
from lamina.losses.probabilistic import binary_crossentropy as binary_crossentropy
from lamina.losses.probabilistic import binary_focal_crossentropy as binary_focal_crossentropy
from lamina.losses.probabilistic import categorical_crossentropy as categorical_crossentropy
from lamina.losses.probabilistic import (
    categorical_focal_crossentropy as categorical_focal_crossentropy,
)
from lamina.losses.probabilistic import kl_divergence as kl_divergence
from lamina.losses.probabilistic import poisson as poisson
from lamina.losses.probabilistic import (
    sparse_categorical_crossentropy as sparse_categorical_crossentropy,
)
from lamina.losses.regression import huber as huber
from lamina.losses.regression import log_cosh as log_cosh
from lamina.losses.regression import mean_absolute_error as mean_absolute_error
from lamina.losses.regression import (
    mean_absolute_percentage_error as mean_absolute_percentage_error,
)
from lamina.losses.regression import mean_squared_error as mean_squared_error
from lamina.losses.regression import (
    mean_squared_logarithmic_error as mean_squared_logarithmic_error,
)
from lamina.metrics.accuracy import Accuracy as Accuracy
from lamina.metrics.accuracy import BinaryAccuracy as BinaryAccuracy
from lamina.metrics.accuracy import CategoricalAccuracy as CategoricalAccuracy
from lamina.metrics.accuracy import SparseCategoricalAccuracy as SparseCategoricalAccuracy
from lamina.metrics.accuracy import SparseTopKCategoricalAccuracy as SparseTopKCategoricalAccuracy
from lamina.metrics.accuracy import TopKCategoricalAccuracy as TopKCategoricalAccuracy
from lamina.metrics.accuracy import binary_accuracy as binary_accuracy
from lamina.metrics.accuracy import categorical_accuracy as categorical_accuracy
from lamina.metrics.accuracy import sparse_categorical_accuracy as sparse_categorical_accuracy
from lamina.metrics.accuracy import (
    sparse_top_k_categorical_accuracy as sparse_top_k_categorical_accuracy,
)
from lamina.metrics.accuracy import top_k_categorical_accuracy as top_k_categorical_accuracy
from lamina.metrics.auc import AUC as AUC
from lamina.metrics.confusion import FalseNegatives as FalseNegatives
from lamina.metrics.confusion import FalsePositives as FalsePositives
from lamina.metrics.confusion import Precision as Precision
from lamina.metrics.confusion import PrecisionAtRecall as PrecisionAtRecall
from lamina.metrics.confusion import Recall as Recall
from lamina.metrics.confusion import RecallAtPrecision as RecallAtPrecision
from lamina.metrics.confusion import SensitivityAtSpecificity as SensitivityAtSpecificity
from lamina.metrics.confusion import SpecificityAtSensitivity as SpecificityAtSensitivity
from lamina.metrics.confusion import TrueNegatives as TrueNegatives
from lamina.metrics.confusion import TruePositives as TruePositives
from lamina.metrics.correlation import ConcordanceCorrelation as ConcordanceCorrelation
from lamina.metrics.correlation import PearsonCorrelation as PearsonCorrelation
from lamina.metrics.correlation import concordance_correlation as concordance_correlation
from lamina.metrics.correlation import pearson_correlation as pearson_correlation
from lamina.metrics.f_score import F1Score as F1Score
from lamina.metrics.f_score import FBetaScore as FBetaScore
from lamina.metrics.hinge_metrics import CategoricalHinge as CategoricalHinge
from lamina.metrics.hinge_metrics import Hinge as Hinge
from lamina.metrics.hinge_metrics import SquaredHinge as SquaredHinge
from lamina.metrics.iou import BinaryIoU as BinaryIoU
from lamina.metrics.iou import IoU as IoU
from lamina.metrics.iou import MeanIoU as MeanIoU
from lamina.metrics.iou import OneHotIoU as OneHotIoU
from lamina.metrics.iou import OneHotMeanIoU as OneHotMeanIoU
from lamina.metrics.metric import Metric as Metric
from lamina.metrics.probabilistic import BinaryCrossentropy as BinaryCrossentropy
from lamina.metrics.probabilistic import CategoricalCrossentropy as CategoricalCrossentropy
from lamina.metrics.probabilistic import KLDivergence as KLDivergence
from lamina.metrics.probabilistic import Poisson as Poisson
from lamina.metrics.probabilistic import (
    SparseCategoricalCrossentropy as SparseCategoricalCrossentropy,
)
from lamina.metrics.reduction import Mean as Mean
from lamina.metrics.reduction import MeanMetricWrapper as MeanMetricWrapper
from lamina.metrics.reduction import Sum as Sum
from lamina.metrics.regression import CosineSimilarity as CosineSimilarity
from lamina.metrics.regression import LogCoshError as LogCoshError
from lamina.metrics.regression import MeanAbsoluteError as MeanAbsoluteError
from lamina.metrics.regression import MeanAbsolutePercentageError as MeanAbsolutePercentageError
from lamina.metrics.regression import MeanSquaredError as MeanSquaredError
from lamina.metrics.regression import MeanSquaredLogarithmicError as MeanSquaredLogarithmicError
from lamina.metrics.regression import R2Score as R2Score
from lamina.metrics.regression import RootMeanSquaredError as RootMeanSquaredError
from lamina.ops.operation import _snake_case

ALL_OBJECTS: tuple[Any, ...] = (
    AUC,
    Accuracy,
    BinaryAccuracy,
    BinaryCrossentropy,
    BinaryIoU,
    CategoricalAccuracy,
    CategoricalCrossentropy,
    CategoricalHinge,
    ConcordanceCorrelation,
    CosineSimilarity,
    F1Score,
    FBetaScore,
    FalseNegatives,
    FalsePositives,
    Hinge,
    IoU,
    KLDivergence,
    LogCoshError,
    Mean,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanIoU,
    MeanMetricWrapper,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Metric,
    OneHotIoU,
    OneHotMeanIoU,
    PearsonCorrelation,
    Poisson,
    Precision,
    PrecisionAtRecall,
    R2Score,
    Recall,
    RecallAtPrecision,
    RootMeanSquaredError,
    SensitivityAtSpecificity,
    SparseCategoricalAccuracy,
    SparseCategoricalCrossentropy,
    SparseTopKCategoricalAccuracy,
    SpecificityAtSensitivity,
    SquaredHinge,
    Sum,
    TopKCategoricalAccuracy,
    TrueNegatives,
    TruePositives,
)
"""Every built-in metric class (what names and configs resolve to)."""

FUNCTIONS: tuple[Any, ...] = (
    binary_accuracy,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_accuracy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    concordance_correlation,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    pearson_correlation,
    poisson,
    sparse_categorical_accuracy,
    sparse_categorical_crossentropy,
    sparse_top_k_categorical_accuracy,
    squared_hinge,
    top_k_categorical_accuracy,
)
"""The per-sample metric functions of this namespace."""

ALIASES: dict[str, Any] = {
    "bce": BinaryCrossentropy,
    "BCE": BinaryCrossentropy,
    "mse": MeanSquaredError,
    "MSE": MeanSquaredError,
    "mae": MeanAbsoluteError,
    "MAE": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError,
    "MAPE": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "MSLE": MeanSquaredLogarithmicError,
}

ALL_OBJECTS_DICT: dict[str, Any] = (
    {cls.__name__: cls for cls in ALL_OBJECTS}
    | {_snake_case(cls.__name__): cls for cls in ALL_OBJECTS}
    | ALIASES
)
"""Name (class name, its snake-case form or a short alias) -> metric class."""

_DESERIALIZABLE: dict[str, Any] = ALL_OBJECTS_DICT | {fn.__name__: fn for fn in FUNCTIONS}


def serialize(metric: Any) -> Any:
    """A JSON-able config of `metric` (a `Metric` or a metric function), for `deserialize`.

    Example:
        >>> lamina.metrics.serialize(lamina.metrics.AUC(curve="PR"))["class_name"]  # "AUC"
    """
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(metric)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The metric (or metric function) described by `config` (from `serialize`, or a name).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom metrics) to resolve.

    Raises:
        ValueError: `config` names no known metric.
    """
    from lamina.saving.serialization import deserialize_lamina_object

    return deserialize_lamina_object(
        config, module_objects=_DESERIALIZABLE, custom_objects=custom_objects
    )


def get(identifier: Any) -> Any:
    """A metric from a name (``"mse"``, ``"AUC"``, ``"binary_accuracy"``), a config, a class
    or a callable.

    Names resolve to classes, which are instantiated with their defaults; callables
    (metric functions, `Metric` instances) are returned as they are.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.metrics.get("mse")  # a MeanSquaredError() instance
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if inspect.isclass(obj) and issubclass(obj, Metric):
        obj = obj()
    if obj is None or not callable(obj) or inspect.isclass(obj):
        raise ValueError(
            "Argument `identifier` must be a metric name, a config dict, a `Metric` or a "
            f"callable. Could not interpret: identifier={identifier!r}"
        )
    return obj


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(obj.__name__ for obj in ALL_OBJECTS + FUNCTIONS),
    "deserialize",
    "get",
    "serialize",
]
