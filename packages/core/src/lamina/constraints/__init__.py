"""Constraints (``lamina.constraints``): projections applied to weights after updates.

`get` turns a name (``"max_norm"``), a config, a class or a callable into a constraint,
as `Dense(kernel_constraint=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.constraints.constraints import Constraint as Constraint
from lamina.constraints.constraints import MaxNorm as MaxNorm
from lamina.constraints.constraints import MinMaxNorm as MinMaxNorm
from lamina.constraints.constraints import NonNeg as NonNeg
from lamina.constraints.constraints import UnitNorm as UnitNorm
from lamina.saving.lookup import deserialize_callable, get_callable

# Snake-case names are aliases of the classes (``max_norm(3)`` makes a `MaxNorm`).
max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

ALL_OBJECTS: tuple[type[Constraint], ...] = (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)
"""Every built-in constraint class."""

ALIASES: dict[str, type[Constraint]] = {
    "max_norm": MaxNorm,
    "min_max_norm": MinMaxNorm,
    "non_neg": NonNeg,
    "unit_norm": UnitNorm,
}

ALL_OBJECTS_DICT: dict[str, type[Constraint]] = {
    cls.__name__: cls for cls in ALL_OBJECTS
} | ALIASES
"""Name (class name or snake-case alias) -> constraint class."""


def serialize(constraint: Any) -> Any:
    """A JSON-able config of `constraint`, for `deserialize`.

    Example:
        >>> lamina.constraints.serialize(lamina.constraints.MaxNorm(3.0))["class_name"]
    """
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(constraint)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The constraint described by `config` (from `serialize`, or a built-in name).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom constraints) to resolve.

    Raises:
        ValueError: `config` describes no known constraint.
    """
    return deserialize_callable(config, ALL_OBJECTS_DICT, "a constraint", custom_objects)


def get(identifier: Any) -> Any:
    """A constraint from None, a name, a config dict, a class, an instance or a callable.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.constraints.get("non_neg")  # a NonNeg()
    """
    return get_callable(identifier, ALL_OBJECTS_DICT, "a constraint", "Constraint")


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(name for name in ALL_OBJECTS_DICT if name in globals()),
    "deserialize",
    "get",
    "serialize",
]
