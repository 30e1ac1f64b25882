"""Starting and stopping the active backend's profiler for `TensorBoard(profile_batch=...)`.

Each backend has its own profiler writing TensorBoard-readable traces, reached through its
`runtime` namespace (`jax.profiler`, `tf.profiler.experimental`, `torch.profiler`).
"""

from __future__ import annotations

import warnings
from typing import Any


def parse_profile_batch(profile_batch: Any) -> tuple[int, int]:
    """``(start, stop)`` 1-based batch numbers from an int, a pair or "start,stop".

    Raises:
        ValueError: not a non-negative int or an increasing pair of positive ints.
    """
    value = profile_batch
    if isinstance(value, str):
        try:
            value = tuple(int(v) for v in value.split(","))
        except ValueError:
            value = None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value, value
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 0 < value[0] <= value[1]
    ):
        return int(value[0]), int(value[1])
    raise ValueError(
        "Argument `profile_batch` must be a non-negative int or a pair (start, stop) of "
        f"positive ints with start <= stop. Received: profile_batch={profile_batch!r}"
    )


class Profiler:
    """One profiling session of the active backend, written under `log_dir`."""

    def __init__(self, log_dir: str) -> None:
        self.log_dir = log_dir
        self._handle: Any = None

    def start(self) -> None:
        from lamina.backend.registry import current

        backend = current()
        self._handle = backend.runtime.start_profiler(self.log_dir)
        if self._handle is None:
            warnings.warn(
                f"The {backend.name} backend has no profiler; `profile_batch` is ignored.",
                stacklevel=3,
            )

    def stop(self) -> None:
        from lamina.backend.registry import current

        if self._handle is not None:
            current().runtime.stop_profiler(self._handle)
            self._handle = None
