"""Saving (``lamina.saving``): the serialization registry here, file formats in lamina-saving.

The registry (`register_serializable`, `custom_object_scope`, ...) is part of the core, so
configs work without h5py. Saving and loading files go through `facade` to the separately
installed `lamina-saving` package; its extra names (`Checkpoint`, `CheckpointManager`,
`KerasFileEditor`) are looked up on first use.
"""

from typing import Any

from lamina.saving.facade import load_model as load_model
from lamina.saving.facade import load_weights as load_weights
from lamina.saving.facade import save_model as save_model
from lamina.saving.facade import save_weights as save_weights
from lamina.saving.serialization import CustomObjectScope as CustomObjectScope
from lamina.saving.serialization import custom_object_scope as custom_object_scope
from lamina.saving.serialization import deserialize_lamina_object as deserialize_lamina_object
from lamina.saving.serialization import get_custom_objects as get_custom_objects
from lamina.saving.serialization import get_registered_name as get_registered_name
from lamina.saving.serialization import get_registered_object as get_registered_object
from lamina.saving.serialization import register_serializable as register_serializable
from lamina.saving.serialization import serialize_lamina_object as serialize_lamina_object

register_keras_serializable = register_serializable
serialize_keras_object = serialize_lamina_object
deserialize_keras_object = deserialize_lamina_object

_FROM_SAVING_PACKAGE = ("Checkpoint", "CheckpointManager", "KerasFileEditor")


def __getattr__(name: str) -> Any:
    if name in _FROM_SAVING_PACKAGE:
        from lamina.saving.facade import support

        return support().extra(name)
    raise AttributeError(f"module 'lamina.saving' has no attribute {name!r}")


__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "deserialize_lamina_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "register_keras_serializable",
    "register_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
    "serialize_lamina_object",
]
