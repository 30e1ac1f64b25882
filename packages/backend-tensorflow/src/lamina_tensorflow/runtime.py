"""TensorFlow's `runtime` namespace: `tf.profiler`, no TF32."""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def seed_dtype() -> str:
    return "uint32"


def iteration_dtype() -> str:
    return "int64"


def start_profiler(log_dir: str) -> Any:
    tf.profiler.experimental.start(log_dir)
    return log_dir


def stop_profiler(handle: Any) -> None:
    tf.profiler.experimental.stop()


def make_deterministic() -> None:
    tf.config.experimental.enable_tensor_float_32_execution(False)
