"""Peak resident memory of a `fit` epoch: Lamina vs the raw loop (and Keras 3), per backend.

The MLP of `training_speed.py` (784-512-512-10, batch 128, Adam) trains one epoch after
its warm-up, one side per fresh interpreter (a process's peak resident size only grows, so
the sides cannot share one). Each record gives every side's peak RSS and its rise over the
resident size before the epoch; `ratio` is Lamina's peak ÷ raw's, `keras_ratio` Keras' ÷
raw's. `LAMINA_BENCH_SAMPLES` (default 60000) sizes the data, as in `training_speed.py`.

Usage: python benchmarks/memory.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend
from training_speed import WORKER
from worker_common import COMMON

SIDES = ("lamina", "raw", "keras")
TRAINING_BACKENDS = ("jax", "torch", "tensorflow")


def bench_memory() -> Iterator[dict[str, Any]]:
    """One record per backend: each side's peak RSS (MB) and the ratios to raw."""
    per_backend: dict[str, dict[str, Any]] = {}
    for side in SIDES:
        for record in run_per_backend(
            COMMON + WORKER, TRAINING_BACKENDS, {"LAMINA_BENCH_MEMORY": side}
        ):
            row = per_backend.setdefault(
                record["backend"], {"backend": record["backend"], "measure": record["measure"]}
            )
            row[f"{side}_peak_rss_mb"] = record["peak_rss_mb"]
            row[f"{side}_rise_mb"] = record["rise_mb"]
    for row in per_backend.values():
        raw = row.get("raw_peak_rss_mb")
        if raw:
            row["ratio"] = round(row["lamina_peak_rss_mb"] / raw, 3)
            if "keras_peak_rss_mb" in row:
                row["keras_ratio"] = round(row["keras_peak_rss_mb"] / raw, 3)
        yield row


if __name__ == "__main__":
    for record in bench_memory():
        print(json.dumps({"benchmark": "memory", **record}), flush=True)
    sys.exit(0)
