"""Initializers (``lamina.initializers``): the starting values of weights.

Each initializer is a callable ``init(shape, dtype=None)`` returning a backend tensor, with
a config for saving. `get` turns a name (``"glorot_uniform"``, ``"HeNormal"``), a config,
a class or a callable into one, as `Layer.add_weight(initializer=...)` does.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.initializers.constant_initializers import STFT as STFT
from lamina.initializers.constant_initializers import Constant as Constant
from lamina.initializers.constant_initializers import Identity as Identity
from lamina.initializers.constant_initializers import IdentityInitializer as IdentityInitializer
from lamina.initializers.constant_initializers import Ones as Ones
from lamina.initializers.constant_initializers import STFTInitializer as STFTInitializer
from lamina.initializers.constant_initializers import Zeros as Zeros
from lamina.initializers.initializer import Initializer as Initializer
from lamina.initializers.random_initializers import GlorotNormal as GlorotNormal
from lamina.initializers.random_initializers import GlorotUniform as GlorotUniform
from lamina.initializers.random_initializers import HeNormal as HeNormal
from lamina.initializers.random_initializers import HeUniform as HeUniform
from lamina.initializers.random_initializers import LecunNormal as LecunNormal
from lamina.initializers.random_initializers import LecunUniform as LecunUniform
from lamina.initializers.random_initializers import Orthogonal as Orthogonal
from lamina.initializers.random_initializers import (
    OrthogonalInitializer as OrthogonalInitializer,
)
from lamina.initializers.random_initializers import RandomInitializer as RandomInitializer
from lamina.initializers.random_initializers import RandomNormal as RandomNormal
from lamina.initializers.random_initializers import RandomUniform as RandomUniform
from lamina.initializers.random_initializers import TruncatedNormal as TruncatedNormal
from lamina.initializers.random_initializers import VarianceScaling as VarianceScaling
from lamina.saving.lookup import deserialize_callable, get_callable

# Snake-case names are aliases of the classes (``glorot_uniform(seed=1)`` makes one).
constant = Constant
zeros = Zeros
ones = Ones
identity = Identity
stft = STFT
orthogonal = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform

ALL_OBJECTS: tuple[type[Initializer], ...] = (
    Initializer,
    Constant,
    Zeros,
    Ones,
    Identity,
    STFT,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    LecunNormal,
    LecunUniform,
)
"""Every built-in initializer class."""

ALIASES: dict[str, type[Initializer]] = {
    "constant": Constant,
    "zeros": Zeros,
    "zero": Zeros,
    "ones": Ones,
    "one": Ones,
    "identity": Identity,
    "IdentityInitializer": Identity,
    "stft": STFT,
    "STFTInitializer": STFT,
    "orthogonal": Orthogonal,
    "OrthogonalInitializer": Orthogonal,
    "random_normal": RandomNormal,
    "normal": RandomNormal,
    "random_uniform": RandomUniform,
    "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "glorot_normal": GlorotNormal,
    "glorot_uniform": GlorotUniform,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
}

ALL_OBJECTS_DICT: dict[str, type[Initializer]] = {
    cls.__name__: cls for cls in ALL_OBJECTS
} | ALIASES
"""Name (class name or snake-case alias) -> initializer class."""


def serialize(initializer: Any) -> dict[str, Any]:
    """A JSON-able config of `initializer`, for `deserialize`.

    Example:
        >>> lamina.initializers.serialize(lamina.initializers.Constant(2.0))["config"]
    """
    from lamina.saving.serialization import serialize_lamina_object

    config: dict[str, Any] = serialize_lamina_object(initializer)
    return config


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """The initializer described by `config` (from `serialize`, or a built-in name).

    Args:
        config: a config dict or a name.
        custom_objects: extra names (custom initializers) to resolve.

    Raises:
        ValueError: `config` names no known initializer.
    """
    return deserialize_callable(config, ALL_OBJECTS_DICT, "an initializer", custom_objects)


def get(identifier: Any) -> Any:
    """An initializer from a name, a config dict, a class, an instance or a callable.

    None gives None (the caller picks its default).

    Raises:
        ValueError: `identifier` is none of these.

    Example:
        >>> init = lamina.initializers.get("he_normal")  # a HeNormal()
    """
    return get_callable(identifier, ALL_OBJECTS_DICT, "an initializer", "Initializer")


__all__ = [
    "ALL_OBJECTS",
    "ALL_OBJECTS_DICT",
    "RandomInitializer",
    *sorted(name for name in ALL_OBJECTS_DICT if name in globals()),
    "deserialize",
    "get",
    "serialize",
]
