"""A benchmark run's JSON lines as the Markdown table of docs/guides/performance.md.

Usage: python benchmarks/run.py > results.jsonl && python benchmarks/report.py results.jsonl
"""

from __future__ import annotations

import json
import sys
from typing import Any

RATIOS = ("ratio", "cpu_ratio", "target_ratio", "compiled_ratio", "keras_ratio")
"""The columns, each shown where a record has it (`time_ratio` of saving is `ratio` here)."""


def _cell(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if key == "ratio" and value is None:
        value = record.get("time_ratio")
    return "" if value is None else f"{value:.2f}"


def _measure(record: dict[str, Any]) -> str:
    words = [str(record.get("measure", ""))]
    for key in ("model", "size", "batch"):
        if key in record:
            words.append(f"{key} {record[key]}")
    return ", ".join(w for w in words if w)


def report(lines: list[str]) -> str:
    records = [json.loads(line) for line in lines if line.startswith("{")]
    out = []
    for env in (r for r in records if r.get("benchmark") == "environment"):
        versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items())
        out.append(
            f"Measured on {env['cpu']} ({env['cores']} cores, {env['system']}, "
            f"`OMP_NUM_THREADS={env['threads']}`), Python {env['python']}: {versions}.\n"
        )
    out.append("| benchmark | measure | backend | " + " | ".join(RATIOS) + " |")
    out.append("| --- | --- | --- | " + " | ".join("---" for _ in RATIOS) + " |")
    for r in records:
        if r.get("benchmark") == "environment":
            continue
        cells = [r.get("benchmark", ""), _measure(r), r.get("backend", "")]
        out.append("| " + " | ".join([*cells, *(_cell(r, k) for k in RATIOS)]) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as results:
        print(report(results.read().splitlines()))
