"""Import time and peak memory of `import lamina` per backend vs importing the raw backend
(and `import keras` on the same backend, when Keras 3 is installed).

Each figure is the median of several fresh interpreters; memory is the peak resident set
size (ru_maxrss) of the process right after the import.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from per_backend import installed_backends

RAW = {"numpy": "numpy", "jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}
PROBE = """
import resource, time, json
t = time.perf_counter()
import {module}
{touch}
elapsed = time.perf_counter() - t
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"s": elapsed, "rss_mb": peak_mb}}))
"""
REPEATS = 5


def _measure(module: str, backend: str, touch: str = "") -> dict[str, float]:
    env = {**os.environ, "LAMINA_BACKEND": backend, "KERAS_BACKEND": backend}
    runs = []
    for _ in range(REPEATS):
        out = subprocess.run(
            [sys.executable, "-c", PROBE.format(module=module, touch=touch)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {
        "s": statistics.median(r["s"] for r in runs),
        "rss_mb": statistics.median(r["rss_mb"] for r in runs),
    }


def _installed() -> list[str]:
    names = installed_backends()
    return [b for b in RAW if b in names]


def bench_import_cost() -> Iterator[dict[str, Any]]:
    for backend in _installed():
        raw = _measure(RAW[backend], backend)
        lam = _measure("lamina", backend, touch="lamina.backend.current()")
        record = {
            "backend": backend,
            "raw_import_s": round(raw["s"], 4),
            "lamina_import_s": round(lam["s"], 4),
            "time_ratio": round(lam["s"] / raw["s"], 3),
            "raw_peak_rss_mb": round(raw["rss_mb"], 1),
            "lamina_peak_rss_mb": round(lam["rss_mb"], 1),
            "memory_ratio": round(lam["rss_mb"] / raw["rss_mb"], 3),
        }
        if backend != "numpy" and importlib.util.find_spec("keras") is not None:
            kr = _measure("keras", backend)
            record["keras_import_s"] = round(kr["s"], 4)
            record["keras_time_ratio"] = round(kr["s"] / raw["s"], 3)
            record["keras_peak_rss_mb"] = round(kr["rss_mb"], 1)
            record["keras_memory_ratio"] = round(kr["rss_mb"] / raw["rss_mb"], 3)
        yield record
