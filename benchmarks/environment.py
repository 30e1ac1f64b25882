"""The machine and the package versions a benchmark run measured on: its first JSON line.

Versions come from the installed distributions' metadata, so nothing here imports a
framework (each backend is measured in its own fresh interpreter).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import subprocess
from typing import Any

PACKAGES = ("lamina", "numpy", "jax", "jaxlib", "torch", "tensorflow", "keras", "h5py")


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), else what `platform` says."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpus() -> list[str]:
    """The NVIDIA GPUs the machine shows (``nvidia-smi -L``), by name; none without it."""
    if shutil.which("nvidia-smi") is None:
        return []
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    # "GPU 0: NVIDIA H200 (UUID: ...)" -> "NVIDIA H200"
    return [line.split(":", 1)[1].split("(UUID")[0].strip()
            for line in listing.splitlines() if line.startswith("GPU ")]


def environment() -> dict[str, Any]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return {
        "benchmark": "environment",
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "gpus": gpus(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": versions,
        "threads": os.environ.get("OMP_NUM_THREADS", "default"),
    }
