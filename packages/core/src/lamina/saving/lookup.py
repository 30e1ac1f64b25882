"""`get` and `deserialize` for the namespaces of callable objects (initializers,
regularizers, constraints): one behaviour, one place.

A namespace passes its name table and how to name its kind in errors.
"""

from __future__ import annotations

import inspect
from typing import Any

from lamina.saving.serialization import deserialize_lamina_object


def deserialize_callable(
    config: Any, objects: dict[str, Any], kind: str, custom_objects: dict[str, Any] | None
) -> Any:
    """The object `config` describes (a config dict or a name), instantiating classes.

    Raises:
        ValueError: `config` describes no known object of this `kind`.
    """
    obj = deserialize_lamina_object(
        config, module_objects=dict(objects), custom_objects=custom_objects
    )
    if inspect.isclass(obj):
        obj = obj()
    if isinstance(obj, str) or not callable(obj):
        raise ValueError(
            f"Argument `config` must name or describe {kind}. Could not interpret: "
            f"config={config!r}"
        )
    return obj


def get_callable(identifier: Any, objects: dict[str, Any], kind: str, base: str) -> Any:
    """An object from None (gives None), a name, a config, a class, an instance or a callable.

    Raises:
        ValueError: `identifier` is none of these.
    """
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        return deserialize_callable(identifier, objects, kind, None)
    obj = identifier() if inspect.isclass(identifier) else identifier
    if not callable(obj):
        raise ValueError(
            f"Argument `identifier` must be {kind} name, a config dict, a `{base}` instance "
            f"or a callable. Could not interpret: identifier={identifier!r}"
        )
    return obj
