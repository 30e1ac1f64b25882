"""Losses (``lamina.losses``): classes with reductions and the per-sample functions they wrap.

Every loss is written with `lamina.ops`, so it runs on every backend and inside compiled
steps. `get` turns a name, a config or a callable into a loss, as `compile(loss=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.losses.hinge import CategoricalHinge as CategoricalHinge
from lamina.losses.hinge import Hinge as Hinge
from lamina.losses.hinge import SquaredHinge as SquaredHinge
from lamina.losses.hinge import categorical_hinge as categorical_hinge
from lamina.losses.hinge import hinge as hinge
from lamina.losses.hinge import squared_hinge as squared_hinge
from lamina.losses.loss import Loss as Loss
from lamina.losses.loss import LossFunctionWrapper as LossFunctionWrapper
from lamina.losses.overlap import Dice as Dice
from lamina.losses.overlap import Tversky as Tversky
from lamina.losses.overlap import dice as dice
from lamina.losses.overlap import tversky as tversky
from lamina.losses.probabilistic import BinaryCrossentropy as BinaryCrossentropy
from lamina.losses.probabilistic import BinaryFocalCrossentropy as BinaryFocalCrossentropy
from lamina.losses.probabilistic import CategoricalCrossentropy as CategoricalCrossentropy
from lamina.losses.probabilistic import (
    CategoricalFocalCrossentropy as CategoricalFocalCrossentropy,
)
from lamina.losses.probabilistic import (
    CategoricalGeneralizedCrossEntropy as CategoricalGeneralizedCrossEntropy,
)
from lamina.losses.probabilistic import KLDivergence as KLDivergence
from lamina.losses.probabilistic import Poisson as Poisson
from lamina.losses.probabilistic import (
    SparseCategoricalCrossentropy as SparseCategoricalCrossentropy,
)
from lamina.losses.probabilistic import binary_crossentropy as binary_crossentropy
from lamina.losses.probabilistic import binary_focal_crossentropy as binary_focal_crossentropy
from lamina.losses.probabilistic import categorical_crossentropy as categorical_crossentropy
from lamina.losses.probabilistic import (
    categorical_focal_crossentropy as categorical_focal_crossentropy,
)
from lamina.losses.probabilistic import (
    categorical_generalized_cross_entropy as categorical_generalized_cross_entropy,
)
from lamina.losses.probabilistic import kl_divergence as kl_divergence
from lamina.losses.probabilistic import poisson as poisson
from lamina.losses.probabilistic import (
    sparse_categorical_crossentropy as sparse_categorical_crossentropy,
)
from lamina.losses.regression import CosineSimilarity as CosineSimilarity
from lamina.losses.regression import Huber as Huber
from lamina.losses.regression import LogCosh as LogCosh
from lamina.losses.regression import MeanAbsoluteError as MeanAbsoluteError
from lamina.losses.regression import MeanAbsolutePercentageError as MeanAbsolutePercentageError
from lamina.losses.regression import MeanSquaredError as MeanSquaredError
from lamina.losses.regression import MeanSquaredLogarithmicError as MeanSquaredLogarithmicError
from lamina.losses.regression import cosine_similarity as cosine_similarity
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
from lamina.losses.sequence import CTC as CTC
from lamina.losses.sequence import Circle as Circle
from lamina.losses.sequence import circle as circle
from lamina.losses.sequence import ctc as ctc

ALL_OBJECTS: tuple[Any, ...] = (
    Loss,
    LossFunctionWrapper,
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CTC,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    CategoricalHinge,
    Circle,
    CosineSimilarity,
    Dice,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
    Tversky,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    categorical_hinge,
    circle,
    cosine_similarity,
    ctc,
    dice,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
    tversky,
)
"""Every built-in loss class and function, by identity (what `serialize` recognizes)."""

ALIASES: dict[str, Any] = {
    "bce": binary_crossentropy,
    "BCE": binary_crossentropy,
    "kld": kl_divergence,
    "KLD": kl_divergence,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error,
    "huber_loss": huber,
    "logcosh": log_cosh,
    "kullback_leibler_divergence": kl_divergence,
}

ALL_OBJECTS_DICT: dict[str, Any] = {obj.__name__: obj for obj in ALL_OBJECTS} | ALIASES
"""Name (class name, function name or short alias) -> loss class or function."""


def serialize(loss: Any) -> Any:
    """A JSON-able config of `loss` (a `Loss` or a loss function), for `deserialize`.

    Example:
        >>> lamina.losses.serialize(lamina.losses.Huber(delta=2.0))["class_name"]  # "Huber"
    """
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(loss)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The loss described by `config` (from `serialize`, or a built-in name).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom losses) to resolve.

    Raises:
        ValueError: `config` names no known loss.
    """
    from lamina.saving.serialization import deserialize_lamina_object

    return deserialize_lamina_object(
        config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects
    )


def get(identifier: Any) -> Any:
    """A loss from a name (``"mse"``, ``"MeanSquaredError"``), a config, a class or a callable.

    Names of functions give the function (per-sample values); names and configs of classes
    give an instance.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.losses.get("mse") is lamina.losses.mean_squared_error  # True
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
    else:
        obj = identifier
    if inspect.isclass(obj) and issubclass(obj, Loss):
        obj = obj()
    if obj is None or not callable(obj) or inspect.isclass(obj):
        raise ValueError(
            "Argument `identifier` must be a loss name, a config dict, a `Loss` or a "
            f"callable. Could not interpret: identifier={identifier!r}"
        )
    return obj


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(obj.__name__ for obj in ALL_OBJECTS),
    "deserialize",
    "get",
    "serialize",
]
