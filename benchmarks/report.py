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
    words = [str(record.get("measure", record.get("op", "")))]  # saving names its `op`
    for key in ("model", "size", "batch"):
        if key in record:
            words.append(f"{key} {record[key]}")
    return ", ".join(w for w in words if w)


RAW_TIMES = ("raw_s", "raw_numpy_s", "raw_tensor_s", "raw_h5py_s", "target_s")
"""Where a record keeps the raw side's seconds: each benchmark names its raw side."""


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    ms = seconds * 1000
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def _environment(env: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items())
    gpus = f", {', '.join(env['gpus'])}" if env.get("gpus") else ""
    return (
        f"Measured on {env['cpu']} ({env['cores']} cores{gpus}, {env['system']}, "
        f"`OMP_NUM_THREADS={env['threads']}`), Python {env['python']}: {versions}.\n"
    )


def report(lines: list[str]) -> str:
    records = [json.loads(line) for line in lines if line.startswith("{")]
    out: list[str] = []
    for env in (r for r in records if r.get("benchmark") == "environment"):
        line = _environment(env)
        if line not in out:  # a run of several `--only` calls repeats its environment
            out.append(line)
    columns = [*RATIOS, "lamina ms", "raw ms"]
    out.append("| benchmark | measure | backend | " + " | ".join(columns) + " |")
    out.append("| --- | --- | --- | " + " | ".join("---" for _ in columns) + " |")
    for r in records:
        if r.get("benchmark") == "environment":
            continue
        raw = next((r[k] for k in RAW_TIMES if k in r), None)
        cells = [r.get("benchmark", ""), _measure(r), r.get("backend", "")]
        times = [_ms(r.get("lamina_s")), _ms(raw)]
        out.append("| " + " | ".join([*cells, *(_cell(r, k) for k in RATIOS), *times]) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as results:
        print(report(results.read().splitlines()))
