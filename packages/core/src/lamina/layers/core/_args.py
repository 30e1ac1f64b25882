"""Argument checks and the activation/initializer/regularizer/constraint lookups core layers share.

The namespace modules are imported lazily: they import `lamina.layers` machinery themselves
(regularizers are used by `Layer`), so a module-level import would be circular.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any


def positive_int(layer: str, arg: str, value: Any) -> int:
    """`value` as an int > 0, or a ValueError naming `layer` and `arg`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(
            f"{layer}: argument `{arg}` must be a positive int. Received: {arg}={value!r}"
        )
    return int(value)


def rate_in_unit(layer: str, value: Any, arg: str = "rate", upper_open: bool = True) -> float:
    """`value` as a float in ``[0, 1)`` (or ``[0, 1]`` when not `upper_open`)."""
    bad = isinstance(value, bool) or not isinstance(value, numbers.Real)
    if not bad:
        bad = not (0 <= value < 1) if upper_open else not (0 <= value <= 1)
    if bad:
        interval = "[0, 1)" if upper_open else "[0, 1]"
        raise ValueError(
            f"{layer}: argument `{arg}` must be a float in {interval}. Received: {arg}={value!r}"
        )
    return float(value)


def data_format(layer: str, value: Any) -> str:
    """`value` or the global image data format, checked."""
    if value is None:
        from lamina import config

        return str(config.image_data_format())
    if value not in ("channels_last", "channels_first"):
        raise ValueError(
            f"{layer}: argument `data_format` must be 'channels_last' or 'channels_first'. "
            f"Received: data_format={value!r}"
        )
    return str(value)


def get_activation(identifier: Any) -> Callable[[Any], Any] | None:
    """A callable activation, or None for the identity (`None` / ``"linear"``)."""
    if identifier is None or identifier == "linear":
        return None
    if callable(identifier):
        fn: Callable[[Any], Any] = identifier
        return fn
    from lamina import activations

    found: Callable[[Any], Any] = activations.get(identifier)
    return found


def serialize_activation(fn: Callable[[Any], Any] | None) -> Any:
    if fn is None:
        return "linear"
    from lamina import activations

    return activations.serialize(fn)


def get_initializer(identifier: Any) -> Any:
    from lamina import initializers

    return initializers.get(identifier)


def serialize_initializer(init: Any) -> Any:
    from lamina import initializers

    return initializers.serialize(init)


def get_regularizer(identifier: Any) -> Any:
    if identifier is None:
        return None
    from lamina import regularizers

    return regularizers.get(identifier)


def serialize_regularizer(reg: Any) -> Any:
    if reg is None:
        return None
    from lamina import regularizers

    return regularizers.serialize(reg)


def get_constraint(identifier: Any) -> Any:
    if identifier is None:
        return None
    from lamina import constraints

    return constraints.get(identifier)


def serialize_constraint(constraint: Any) -> Any:
    if constraint is None:
        return None
    from lamina import constraints

    return constraints.serialize(constraint)
