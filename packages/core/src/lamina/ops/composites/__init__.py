"""Composites: what the core builds once from a backend's primitives.

The backend protocol lists the primitives a backend must translate. The functions here are
written once on top of them (through the active backend's namespaces, on native tensors
whose arithmetic operators every backend's arrays support), so no backend writes them
again. A backend that has a faster native kernel for one of them defines a function of the
same name in the same namespace module, with a comment saying why; `pick` and `composite`
prefer it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

import numpy as np

from lamina.backend import Capability
from lamina.ops.composites import control_flow, image, linalg, math, nn, numpy
from lamina.ops.composites.image import perspective_coefficients, sobel_edges, ssim
from lamina.ops.composites.numpy import nanstd, nanvar, ptp
from lamina.ops.dispatch import backend

__all__ = [
    "composite",
    "fallback",
    "nanstd",
    "nanvar",
    "perspective_coefficients",
    "pick",
    "ptp",
    "sobel_edges",
    "ssim",
]

F = TypeVar("F", bound=Callable[..., Any])

_MODULES: dict[str, ModuleType] = {
    "control_flow": control_flow,
    "image": image,
    "linalg": linalg,
    "math": math,
    "nn": nn,
    "numpy": numpy,
}


def pick(namespace: Any, name: str, composite: F) -> F:
    """The backend's own `name` in `namespace` where it has one, else `composite`."""
    native: F = getattr(namespace, name, composite)
    return native


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with NumPy's floating-point warnings off: composites reach inf and NaN through
    array operators, which NumPy warns about where the other frameworks stay silent."""

    @functools.wraps(fn)
    def run(*args: Any) -> Any:
        # Only on backends that never trace: a graph tracer (torch.compile) would break its
        # graph on the context manager, and the frameworks that trace do not warn anyway.
        # (The arrays may wrap NumPy without being NumPy's, as array_api_strict's do.)
        if backend().supports(Capability.JIT):
            return fn(*args)
        with np.errstate(all="ignore"):
            return fn(*args)

    return run


_FALLBACKS: dict[tuple[str, str], Callable[..., Any]] = {}


def fallback(space: str, name: str) -> Callable[..., Any]:
    """The core composite ``space.name``, whatever the backend defines."""
    key = (space, name)
    found = _FALLBACKS.get(key)
    if found is None:  # a plain dict, not functools.cache: tracers step through it
        found = _FALLBACKS[key] = _quiet(getattr(_MODULES[space], name))
    return found


def composite(space: str, name: str) -> Callable[..., Any]:
    """The active backend's ``space.name`` where it defines one, else the core composite.

    Example:
        >>> from lamina.ops.composites import composite
        >>> float(composite("nn", "relu6")(lamina.ops.convert_to_tensor(8.0)))
        6.0
    """
    native: Callable[..., Any] | None = getattr(getattr(backend(), space), name, None)
    return fallback(space, name) if native is None else native
