"""What differs per backend outside the ops: seeds, counters, profiling, determinism.

The core never tests a backend's name; where backends differ it asks the backend's
`runtime` namespace (`lamina.backend.generic_runtime` is the default a backend may keep).
"""

from __future__ import annotations

from typing import Any, Protocol


class RuntimeOps(Protocol):
    def seed_dtype(self) -> str:
        """The dtype of seed-state tensors ("uint32", or "int64" where uint32 arithmetic
        is missing)."""
        ...

    def iteration_dtype(self) -> str:
        """The dtype of step counters: "int64", or "int32" where 64-bit ints are off."""
        ...

    def start_profiler(self, log_dir: str) -> Any:
        """Start a TensorBoard-readable trace under `log_dir`; return a handle for
        `stop_profiler`, or None when this backend has no profiler."""
        ...

    def stop_profiler(self, handle: Any) -> None:
        """End the trace `start_profiler` began."""
        ...

    def make_deterministic(self) -> None:
        """Full-precision float32 matmuls (no TF32 or bf16 passes), for tests comparing
        with NumPy."""
        ...
