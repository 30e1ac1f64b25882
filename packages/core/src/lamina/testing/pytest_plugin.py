"""Shared pytest setup for every Lamina package: one backend per process.

Each package's ``tests/conftest.py`` star-imports this module. The backend comes from
``LAMINA_BACKEND``; running without it is an error, so a misconfigured session cannot pass
silently on the default backend.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import lamina
from lamina.backend import Capability
from lamina.backend.registry import current, installed_backends
from lamina.testing.layer_test import holds_half_precision

NULL_TIER = not installed_backends()
"""No backend installed: only the backend-free tests (tests/null) can run."""

if not os.environ.get("LAMINA_BACKEND") and not NULL_TIER:
    raise pytest.UsageError(
        "Set LAMINA_BACKEND (numpy, jax, torch or tensorflow) to run Lamina's tests; "
        "the nox session `tests(<backend>)` does it for you."
    )

__all__ = [
    "_fresh_session",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_report_header",
]


def pytest_configure(config: pytest.Config) -> None:
    if NULL_TIER:
        return
    wanted = os.environ["LAMINA_BACKEND"]
    active = current().name
    if active != wanted:
        raise pytest.UsageError(f"LAMINA_BACKEND={wanted} but the loaded backend is {active}.")
    current().runtime.make_deterministic()  # comparable with NumPy references


def pytest_report_header(config: pytest.Config) -> str:
    return "lamina backend: none (null tier)" if NULL_TIER else f"lamina backend: {current().name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if NULL_TIER:
        return
    backend = current()
    half = holds_half_precision()
    for item in items:
        if not half and item.get_closest_marker("half_precision") is not None:
            item.add_marker(
                pytest.mark.skip(reason=f"backend {backend.name!r} has no float16/bfloat16 tensors")
            )
        for marker in item.iter_markers(name="requires"):
            capability: Capability = marker.args[0]
            if not backend.supports(capability):
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"backend {backend.name!r} lacks capability {capability.value!r}"
                    )
                )


@pytest.fixture(autouse=True)
def _fresh_session() -> Iterator[None]:
    lamina.utils.clear_session(free_memory=False)
    yield
