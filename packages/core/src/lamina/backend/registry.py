"""Finding, choosing and loading a backend.

Names come from entry-point metadata (``lamina.backends``), so listing them imports
nothing; only the selected entry point is ever loaded.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
import sys
from typing import cast

from .capabilities import Capability
from .config import apply_config_file, read_config_file
from .protocol import BACKEND_API, Backend

ENTRY_POINT_GROUP = "lamina.backends"
PREFERENCE = ("jax", "torch", "tensorflow", "numpy")
"""When nothing is configured, the first of these that is installed is used."""


class BackendNotFoundError(ImportError):
    """The requested backend is not installed, or no backend is installed at all."""


class _State:
    """The active backend (None until first needed) and its name."""

    active: Backend | None = None
    name: str | None = None


@functools.cache
def installed_backends() -> dict[str, importlib.metadata.EntryPoint]:
    """Installed backends by name, read from package metadata without importing them."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _install_hint(name: str) -> str:
    installed = sorted(installed_backends())
    return (
        f"Installed backends: {installed or 'none'}. "
        f"Install it with `pip install lamina-{name}` (or `pip install lamina[{name}]`)."
    )


def requested_backend_name() -> str | None:
    """The configured backend: ``LAMINA_BACKEND``, else the config file, else None."""
    env = os.environ.get("LAMINA_BACKEND")
    if env:
        return env.strip().lower()
    configured = read_config_file().get("backend")
    return str(configured).lower() if configured else None


def default_backend_name() -> str | None:
    """The backend used when none is configured: the first installed by preference."""
    installed = installed_backends()
    for name in PREFERENCE:
        if name in installed:
            return name
    return next(iter(sorted(installed)), None)


def load_backend(name: str) -> Backend:
    """Import the backend registered under `name` and check its protocol version."""
    entry_point = installed_backends().get(name)
    if entry_point is None:
        raise BackendNotFoundError(f"Backend {name!r} is not installed. {_install_hint(name)}")
    backend = cast(Backend, entry_point.load())
    major, _minor = backend.api_version
    if major != BACKEND_API[0]:
        raise BackendNotFoundError(
            f"Backend {name!r} implements backend API {backend.api_version}, but this "
            f"version of lamina needs {BACKEND_API[0]}.x. Upgrade `lamina-{name}` or `lamina`."
        )
    return backend


def selected_backend_name() -> str | None:
    """The name of the backend in use, choosing it (without loading it) if needed."""
    if _State.name is None:
        _State.name = requested_backend_name() or default_backend_name()
    return _State.name


def current() -> Backend:
    """The active backend, loaded on first use.

    Raises:
        BackendNotFoundError: no backend is installed, or the configured one is not.
    """
    active = _State.active
    if active is not None:
        return active
    name = selected_backend_name()
    if name is None:
        raise BackendNotFoundError(
            "No lamina backend is installed, so tensors cannot be computed (symbolic "
            "models still work). Install one, e.g. `pip install lamina[numpy]` or "
            "`pip install lamina[jax]`."
        )
    apply_config_file(read_config_file())
    _State.active = load_backend(name)
    return _State.active


def current_if_any() -> Backend | None:
    """The active backend, or None when no backend is installed at all."""
    if _State.active is None and selected_backend_name() is None:
        return None
    return current()


def load_on_import() -> None:
    """Load the selected backend as ``import lamina`` does, so a missing one fails there.

    Skipped while that backend's own package is importing lamina (its modules import the
    kit first): it is incomplete until then, and loads on first use instead.
    """
    name = selected_backend_name()
    entry_point = installed_backends().get(name) if name is not None else None
    loading = entry_point is not None and entry_point.module.split(".")[0] in sys.modules
    if _State.active is None and loading:
        return
    current_if_any()


def supports(capability: Capability) -> bool:
    """Whether the active backend declares `capability`."""
    return current().supports(capability)


_KEEP_ON_SWITCH = ("lamina.backend", "lamina._version")


def set_backend(name: str) -> None:
    """Switch the active backend in this process and rebuild Lamina's modules.

    Classes defined before the switch (layers, models) belong to the old backend: import
    from ``lamina`` again after calling this. References to submodules taken with
    ``from lamina import x`` must be taken again too.

    Raises:
        BackendNotFoundError: `name` is not installed.
    """
    name = str(name).strip().lower()
    backend = load_backend(name)
    _State.active = backend
    _State.name = name
    stale = [
        mod
        for mod in sys.modules
        if mod.startswith("lamina.") and not mod.startswith(_KEEP_ON_SWITCH)
    ]
    for mod in stale:
        del sys.modules[mod]
    top = sys.modules.get("lamina")
    if top is not None:
        # Drop the old submodules bound on the package too, or the re-import would walk
        # `lamina.ops...` through them instead of the fresh ones.
        for mod in stale:
            parent, _, child = mod.rpartition(".")
            if parent == "lamina":
                top.__dict__.pop(child, None)
        importlib.reload(top)
