"""JAX's `runtime` namespace: 32-bit counters unless x64 is on, `jax.profiler`."""

from __future__ import annotations

from typing import Any

import jax


def seed_dtype() -> str:
    return "uint32"  # int64 would need jax_enable_x64


def iteration_dtype() -> str:
    return "int64" if jax.config.read("jax_enable_x64") else "int32"


def start_profiler(log_dir: str) -> Any:
    jax.profiler.start_trace(log_dir)
    return log_dir


def stop_profiler(handle: Any) -> None:
    jax.profiler.stop_trace()


def make_deterministic() -> None:
    jax.config.update("jax_default_matmul_precision", "float32")
