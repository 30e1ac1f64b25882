"""Activations (``lamina.activations``): element-wise (or per-axis) nonlinearities.

`get` turns a name (``"relu"``), a config or a callable into an activation function, as
`Dense(activation=...)` does; None gives `linear`. `serialize` gives a built-in's name.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.activations.activations import celu as celu
from lamina.activations.activations import elu as elu
from lamina.activations.activations import exponential as exponential
from lamina.activations.activations import gelu as gelu
from lamina.activations.activations import glu as glu
from lamina.activations.activations import hard_shrink as hard_shrink
from lamina.activations.activations import hard_sigmoid as hard_sigmoid
from lamina.activations.activations import hard_silu as hard_silu
from lamina.activations.activations import hard_swish as hard_swish
from lamina.activations.activations import hard_tanh as hard_tanh
from lamina.activations.activations import leaky_relu as leaky_relu
from lamina.activations.activations import linear as linear
from lamina.activations.activations import log_sigmoid as log_sigmoid
from lamina.activations.activations import log_softmax as log_softmax
from lamina.activations.activations import mish as mish
from lamina.activations.activations import relu as relu
from lamina.activations.activations import relu6 as relu6
from lamina.activations.activations import selu as selu
from lamina.activations.activations import sigmoid as sigmoid
from lamina.activations.activations import silu as silu
from lamina.activations.activations import soft_shrink as soft_shrink
from lamina.activations.activations import softmax as softmax
from lamina.activations.activations import softplus as softplus
from lamina.activations.activations import softsign as softsign
from lamina.activations.activations import sparse_plus as sparse_plus
from lamina.activations.activations import sparse_sigmoid as sparse_sigmoid
from lamina.activations.activations import sparsemax as sparsemax
from lamina.activations.activations import squareplus as squareplus
from lamina.activations.activations import swish as swish
from lamina.activations.activations import tanh as tanh
from lamina.activations.activations import tanh_shrink as tanh_shrink
from lamina.activations.activations import threshold as threshold

ALL_OBJECTS: tuple[Any, ...] = (
    celu,
    elu,
    exponential,
    gelu,
    glu,
    hard_shrink,
    hard_sigmoid,
    hard_silu,
    hard_tanh,
    leaky_relu,
    linear,
    log_sigmoid,
    log_softmax,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_shrink,
    softmax,
    softplus,
    softsign,
    sparse_plus,
    sparse_sigmoid,
    sparsemax,
    squareplus,
    tanh,
    tanh_shrink,
    threshold,
)
"""Every built-in activation function (aliases excluded)."""

ALIASES: dict[str, Any] = {"swish": silu, "hard_swish": hard_silu}

ALL_OBJECTS_DICT: dict[str, Any] = {fn.__name__: fn for fn in ALL_OBJECTS} | ALIASES
"""Name -> activation function."""

_BUILTIN_IDS = {id(fn) for fn in ALL_OBJECTS}


def serialize(activation: Any) -> Any:
    """A built-in activation's name, or the config of another callable, for `deserialize`.

    Example:
        >>> lamina.activations.serialize(lamina.activations.swish)  # "silu"
    """
    if id(activation) in _BUILTIN_IDS:
        name: str = activation.__name__
        return name
    if not callable(activation):
        raise ValueError(
            "Argument `activation` must be a callable. "
            f"Received: activation={activation!r}"
        )
    from lamina.saving.serialization import serialize_lamina_object

    return serialize_lamina_object(activation)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The activation `config` describes: a name or a config from `serialize`.

    Args:
        config: a name or a config dict.
        custom_objects: extra names (custom activations) to resolve.

    Raises:
        ValueError: `config` describes no known activation.
    """
    from lamina.saving.lookup import deserialize_callable

    return deserialize_callable(
        config, ALL_OBJECTS_DICT, "an activation function", custom_objects
    )


def get(identifier: Any) -> Any:
    """An activation function from None (`linear`), a name, a config or a callable.

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> lamina.activations.get("relu") is lamina.activations.relu  # True
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        obj = deserialize(identifier)
    elif isinstance(identifier, str):
        obj = ALL_OBJECTS_DICT.get(identifier)
        if obj is None:
            from lamina.saving.serialization import get_registered_object

            obj = get_registered_object(identifier)
    else:
        obj = identifier
    if inspect.isclass(obj):
        obj = obj()
    if obj is None or not callable(obj):
        raise ValueError(
            "Argument `identifier` must be an activation name, a config dict or a "
            f"callable. Could not interpret: identifier={identifier!r}"
        )
    return obj


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    *sorted(ALL_OBJECTS_DICT),
    "deserialize",
    "get",
    "serialize",
]
