"""Optimizers (``lamina.optimizers``): update rules whose state lives in variables.

Every optimizer is written with `lamina.ops` and `Variable.assign`, so it runs eagerly on
every backend, inside `tf.function`, and inside a jitted JAX step through
`Optimizer.stateless_apply`. `get` turns a name (``"adam"``), a config or an instance into
an optimizer, as `compile(optimizer=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.optimizers import legacy as legacy
from lamina.optimizers import schedules as schedules
from lamina.optimizers.adafactor import Adafactor as Adafactor
from lamina.optimizers.adam import Adam as Adam
from lamina.optimizers.adam import Adamax as Adamax
from lamina.optimizers.adam import AdamW as AdamW
from lamina.optimizers.adam import Nadam as Nadam
from lamina.optimizers.adaptive import Adadelta as Adadelta
from lamina.optimizers.adaptive import Adagrad as Adagrad
from lamina.optimizers.adaptive import RMSprop as RMSprop
from lamina.optimizers.ftrl import Ftrl as Ftrl
from lamina.optimizers.lamb import Lamb as Lamb
from lamina.optimizers.lion import Lion as Lion
from lamina.optimizers.loss_scale_optimizer import LossScaleOptimizer as LossScaleOptimizer
from lamina.optimizers.multi_optimizer import MultiOptimizer as MultiOptimizer
from lamina.optimizers.multi_optimizer import OptimizerMap as OptimizerMap
from lamina.optimizers.muon import Muon as Muon
from lamina.optimizers.optimizer import Optimizer as Optimizer
from lamina.optimizers.schedule_free import ScheduleFreeAdamW as ScheduleFreeAdamW
from lamina.optimizers.sgd import SGD as SGD

ALL_OBJECTS: tuple[type[Any], ...] = (
    Optimizer,
    Adadelta,
    Adafactor,
    Adagrad,
    Adam,
    AdamW,
    Adamax,
    Ftrl,
    Lamb,
    Lion,
    LossScaleOptimizer,
    MultiOptimizer,
    Muon,
    Nadam,
    OptimizerMap,
    RMSprop,
    SGD,
    ScheduleFreeAdamW,
)
"""Every built-in optimizer class (and `OptimizerMap`)."""

ALL_OBJECTS_DICT: dict[str, Any] = {cls.__name__: cls for cls in ALL_OBJECTS} | {
    cls.__name__.lower(): cls for cls in ALL_OBJECTS if cls not in (Optimizer, OptimizerMap)
}
"""Class names and their lower-case forms (``"adam"``, ``"sgd"``) -> class."""


def serialize(optimizer: Optimizer) -> Any:
    """A JSON-able config of `optimizer` (its class and constructor arguments).

    Raises:
        TypeError: `optimizer` is not an `Optimizer`.
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"Argument `optimizer` must be an `Optimizer`. Received: optimizer={optimizer!r}"
        )
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(optimizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The optimizer described by `config` (from `serialize`, or a name like ``"adam"``).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom optimizers) to resolve.

    Raises:
        ValueError: `config` names no known optimizer.
    """
    from lamina.saving.serialization import deserialize_lamina_object

    if isinstance(config, dict) and isinstance(config.get("class_name"), str):
        # Names are matched case-insensitively, as Keras does ("Adam" or "adam").
        lowered = config["class_name"].lower()
        if config["class_name"] not in ALL_OBJECTS_DICT and lowered in ALL_OBJECTS_DICT:
            config = {**config, "class_name": ALL_OBJECTS_DICT[lowered].__name__}
    obj = deserialize_lamina_object(
        config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects
    )
    if inspect.isclass(obj) and issubclass(obj, Optimizer):
        obj = obj()
    if not isinstance(obj, Optimizer):
        raise ValueError(
            "Argument `config` must describe an optimizer (a name such as 'adam' or a "
            f"config dict). Received: config={config!r}"
        )
    return obj


def get(identifier: Any) -> Any:
    """An optimizer from a name (``"adam"``), a config dict, a class or an instance.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.optimizers.get("sgd").learning_rate  # 0.01
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if inspect.isclass(identifier) and issubclass(identifier, Optimizer):
        return identifier()
    if isinstance(identifier, str):
        cls = ALL_OBJECTS_DICT.get(identifier) or ALL_OBJECTS_DICT.get(identifier.lower())
        if cls is not None and cls not in (
            Optimizer,
            OptimizerMap,
            LossScaleOptimizer,
            MultiOptimizer,
        ):
            return cls()
    elif isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError(
        "Argument `identifier` must be an optimizer name (e.g. 'adam'), a config dict or "
        f"an `Optimizer`. Could not interpret: identifier={identifier!r}"
    )


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(cls.__name__ for cls in ALL_OBJECTS),
    "deserialize",
    "get",
    "legacy",
    "schedules",
    "serialize",
]
