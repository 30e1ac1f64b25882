"""Learning-rate schedules (``lamina.optimizers.schedules``): the rate as a function of step.

Pass one as an optimizer's `learning_rate`; the optimizer evaluates it at its
`iterations` on every update.
"""

from __future__ import annotations

from typing import Any

from lamina.optimizers.schedules.learning_rate_schedule import CosineDecay as CosineDecay
from lamina.optimizers.schedules.learning_rate_schedule import (
    CosineDecayRestarts as CosineDecayRestarts,
)
from lamina.optimizers.schedules.learning_rate_schedule import (
    ExponentialDecay as ExponentialDecay,
)
from lamina.optimizers.schedules.learning_rate_schedule import (
    InverseTimeDecay as InverseTimeDecay,
)
from lamina.optimizers.schedules.learning_rate_schedule import (
    LearningRateSchedule as LearningRateSchedule,
)
from lamina.optimizers.schedules.learning_rate_schedule import (
    PiecewiseConstantDecay as PiecewiseConstantDecay,
)
from lamina.optimizers.schedules.learning_rate_schedule import PolynomialDecay as PolynomialDecay

ALL_OBJECTS: tuple[type[LearningRateSchedule], ...] = (
    LearningRateSchedule,
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
)
"""Every built-in schedule class."""

ALL_OBJECTS_DICT: dict[str, Any] = {cls.__name__: cls for cls in ALL_OBJECTS}


def serialize(learning_rate_schedule: LearningRateSchedule) -> Any:
    """A JSON-able config of a schedule, for `deserialize`.

    Raises:
        TypeError: the argument is not a `LearningRateSchedule`.
    """
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise TypeError(
            "Argument `learning_rate_schedule` must be a `LearningRateSchedule`. "
            f"Received: learning_rate_schedule={learning_rate_schedule!r}"
        )
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(learning_rate_schedule)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The schedule described by `config` (from `serialize`).

    Args:
        config: a config dict.
        custom_objects: extra names (custom schedules) to resolve.

    Raises:
        ValueError: `config` names no known schedule.
    """
    from lamina.saving.serialization import deserialize_lamina_object

    obj = deserialize_lamina_object(
        config, module_objects=ALL_OBJECTS_DICT, custom_objects=custom_objects
    )
    if not isinstance(obj, LearningRateSchedule):
        raise ValueError(
            f"Argument `config` must describe a `LearningRateSchedule`. Received: config={config!r}"
        )
    return obj


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(cls.__name__ for cls in ALL_OBJECTS),
    "deserialize",
    "serialize",
]
