"""Starting and stopping the active backend's profiler for `TensorBoard(profile_batch=...)`.

Each backend has its own profiler writing TensorBoard-readable traces: `jax.profiler`,
`tf.profiler.experimental` and `torch.profiler` (for the PyTorch TensorBoard plugin).
"""

from __future__ import annotations

import os
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
        from lamina.backend import backend

        self.backend = backend()
        self.log_dir = log_dir
        self._session: Any = None

    def start(self) -> None:
        name = self.backend
        if name == "jax":
            import jax

            jax.profiler.start_trace(self.log_dir)
        elif name == "tensorflow":
            import tensorflow as tf

            tf.profiler.experimental.start(self.log_dir)
        elif name == "torch":
            import torch

            folder = os.path.join(self.log_dir, "plugins", "profile")
            self._session = torch.profiler.profile(
                on_trace_ready=torch.profiler.tensorboard_trace_handler(folder)
            )
            self._session.__enter__()
        else:
            warnings.warn(
                f"The {name} backend has no profiler; `profile_batch` is ignored.",
                stacklevel=3,
            )
            self.backend = "none"

    def stop(self) -> None:
        name = self.backend
        if name == "jax":
            import jax

            jax.profiler.stop_trace()
        elif name == "tensorflow":
            import tensorflow as tf

            tf.profiler.experimental.stop()
        elif name == "torch" and self._session is not None:
            self._session.__exit__(None, None, None)
            self._session = None
