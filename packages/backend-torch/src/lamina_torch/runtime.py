"""torch's `runtime` namespace: int64 seeds, `torch.profiler`, no TF32."""

from __future__ import annotations

import os
from typing import Any

import torch


def seed_dtype() -> str:
    return "int64"  # torch has no uint32 arithmetic ("add_stub not implemented for 'UInt32'")


def iteration_dtype() -> str:
    return "int64"


def start_profiler(log_dir: str) -> Any:
    folder = os.path.join(log_dir, "plugins", "profile")  # the PyTorch TensorBoard plugin's
    handler = torch.profiler.tensorboard_trace_handler(folder)
    session = torch.profiler.profile(on_trace_ready=handler)
    session.__enter__()
    return session


def stop_profiler(handle: Any) -> None:
    handle.__exit__(None, None, None)


def make_deterministic() -> None:
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
