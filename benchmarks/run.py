"""Run every benchmark and print one JSON line per measurement.

Each measurement compares Lamina with the raw backend doing the same work, in the same run,
and reports the ratio. Nothing here asserts a time: ratios are read, not tested. The first
line names the machine and the versions measured (`environment.py`); `report.py` turns the
lines into the table of docs/guides/performance.md.

Usage: python benchmarks/run.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys

from augmentation import bench_augmentation
from dispatch_overhead import bench_dispatch_overhead
from distributed import bench_distributed
from environment import environment
from import_cost import bench_import_cost
from inference_latency import bench_inference_latency
from memory import bench_memory
from saving import bench_saving
from training_speed import bench_training_speed
from training_speed_attention import bench_training_speed_attention
from training_speed_recurrent import bench_training_speed_recurrent

BENCHMARKS = {
    "import": bench_import_cost,
    "dispatch": bench_dispatch_overhead,
    "training": bench_training_speed,
    "training_recurrent": bench_training_speed_recurrent,
    "training_attention": bench_training_speed_attention,
    "inference": bench_inference_latency,
    "memory": bench_memory,
    "saving": bench_saving,
    "augmentation": bench_augmentation,
    "distributed": bench_distributed,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    print(json.dumps(environment()), flush=True)
    for name, fn in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        for record in fn():
            print(json.dumps({"benchmark": name, **record}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
