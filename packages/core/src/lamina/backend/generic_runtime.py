"""The `runtime` namespace of a backend that needs nothing special (see `RuntimeOps`).

uint32 seeds, int64 step counters, no profiler, and matmuls that are already exact.
"""

from __future__ import annotations

from typing import Any


def seed_dtype() -> str:
    return "uint32"


def iteration_dtype() -> str:
    return "int64"


def start_profiler(log_dir: str) -> Any:
    return None


def stop_profiler(handle: Any) -> None:
    return None


def make_deterministic() -> None:
    return None
