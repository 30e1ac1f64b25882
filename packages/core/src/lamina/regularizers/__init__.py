"""Regularizers (``lamina.regularizers``): weight penalties that join a layer's losses.

`get` turns a name (``"l2"``), a config, a class or a callable into a regularizer, as
`Dense(kernel_regularizer=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.regularizers.regularizers import L1 as L1
from lamina.regularizers.regularizers import L1L2 as L1L2
from lamina.regularizers.regularizers import L2 as L2
from lamina.regularizers.regularizers import OrthogonalRegularizer as OrthogonalRegularizer
from lamina.regularizers.regularizers import Regularizer as Regularizer
from lamina.saving.lookup import deserialize_callable, get_callable

# Snake-case names are aliases of the classes (``l2(0.01)`` makes an `L2`).
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

ALL_OBJECTS: tuple[type[Regularizer], ...] = (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)
"""Every built-in regularizer class."""

ALIASES: dict[str, type[Regularizer]] = {
    "l1": L1,
    "l2": L2,
    "l1_l2": L1L2,
    "l1l2": L1L2,
    "orthogonal_regularizer": OrthogonalRegularizer,
}

ALL_OBJECTS_DICT: dict[str, type[Regularizer]] = {
    cls.__name__: cls for cls in ALL_OBJECTS
} | ALIASES
"""Name (class name or snake-case alias) -> regularizer class."""


def serialize(regularizer: Any) -> Any:
    """A JSON-able config of `regularizer`, for `deserialize`.

    Example:
        >>> lamina.regularizers.serialize(lamina.regularizers.L2(0.1))["config"]  # {"l2": 0.1}
    """
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(regularizer)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The regularizer described by `config` (from `serialize`, or a built-in name).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom regularizers) to resolve.

    Raises:
        ValueError: `config` describes no known regularizer.
    """
    return deserialize_callable(config, ALL_OBJECTS_DICT, "a regularizer", custom_objects)


def get(identifier: Any) -> Any:
    """A regularizer from None, a name, a config dict, a class, an instance or a callable.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.regularizers.get("l1")  # an L1(l1=0.01)
    """
    return get_callable(identifier, ALL_OBJECTS_DICT, "a regularizer", "Regularizer")


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(name for name in ALL_OBJECTS_DICT if name in globals()),
    "deserialize",
    "get",
    "serialize",
]
