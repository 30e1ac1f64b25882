"""The core's only door to `lamina-saving`: found through the ``lamina.saving`` entry point.

The core never imports the saving package by name (DESIGN.md); it asks the entry point
for an object with the `SavingSupport` methods, and says how to install it when none is.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

ENTRY_POINT_GROUP = "lamina.saving"


@runtime_checkable
class SavingSupport(Protocol):
    """What a saving package provides (``lamina_saving.support`` implements it)."""

    def save_model(
        self, model: Any, filepath: Any, overwrite: bool = True, zipped: bool | None = None
    ) -> None: ...

    def load_model(
        self,
        filepath: Any,
        custom_objects: dict[str, Any] | None = None,
        compile: bool = True,
        safe_mode: bool = True,
    ) -> Any: ...

    def save_weights(
        self,
        model: Any,
        filepath: Any,
        overwrite: bool = True,
        max_shard_size: float | None = None,
    ) -> None: ...

    def load_weights(
        self, model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any
    ) -> Any: ...

    def extra(self, name: str) -> Any:
        """Another public name of `lamina.saving` (Checkpoint, CheckpointManager, ...)."""
        ...


@functools.cache
def support() -> SavingSupport:
    """The installed saving support.

    Raises:
        ImportError: `lamina-saving` is not installed (the message says how to fix it).
    """
    found = list(entry_points(group=ENTRY_POINT_GROUP))
    if not found:
        raise ImportError(
            "Saving and loading models needs the `lamina-saving` package, which is not "
            "installed. Install it with: pip install lamina-saving  (or lamina[saving])."
        )
    obj = found[0].load()
    if not isinstance(obj, SavingSupport):
        raise TypeError(
            f"The `{ENTRY_POINT_GROUP}` entry point {found[0].value!r} gives {obj!r}, "
            "which lacks the SavingSupport methods."
        )
    return obj


def save_model(
    model: Any, filepath: Any, overwrite: bool = True, zipped: bool | None = None
) -> None:
    """Save `model` whole (architecture, weights, compile config, optimizer state)."""
    support().save_model(model, filepath, overwrite=overwrite, zipped=zipped)


def load_model(
    filepath: Any,
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Load a model saved by `save_model` (``.lamina`` or ``.keras``)."""
    return support().load_model(
        filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode
    )


def save_weights(
    model: Any, filepath: Any, overwrite: bool = True, max_shard_size: float | None = None
) -> None:
    """Save `model`'s weights to a ``.weights.h5`` file."""
    support().save_weights(model, filepath, overwrite=overwrite, max_shard_size=max_shard_size)


def load_weights(model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> Any:
    """Load weights into `model` (deferred until build when it is not built)."""
    return support().load_weights(model, filepath, skip_mismatch=skip_mismatch, **kwargs)
