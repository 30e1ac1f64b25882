"""Shared pytest setup for every Lamina package: one backend per process.

Each package's ``tests/conftest.py`` star-imports this module. The backend comes from
``LAMINA_BACKEND``; running without it is an error, so a misconfigured session cannot pass
silently on the default backend.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from types import FrameType

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
    "deep_chain",
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


RECURSION_HEADROOM = 800
"""Frames a test under `deep_chain` may use above its own depth: plenty for the frameworks'
own calls, too few for any step that recurses once per layer of the chain."""


@pytest.fixture
def deep_chain() -> Iterator[int]:
    """A chain length for the deep-model tests, run under a lowered recursion limit.

    10,000 layers on a backend that does not compile (NumPy), where building and restoring
    cost least: the scale at which a step repeating work per layer shows. 2,000 on the
    compiling backends: their variables and calls go through the same backend-neutral
    walks, and with Python's recursion limit set `RECURSION_HEADROOM` frames above the
    test, any step that recursed once per layer fails there as surely as at 10,000.
    """
    frame: FrameType | None = sys._getframe()
    depth = 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + RECURSION_HEADROOM)
    try:
        yield 2_000 if current().supports(Capability.JIT) else 10_000
    finally:
        sys.setrecursionlimit(limit)
