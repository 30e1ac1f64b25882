"""Run a benchmark worker once per installed backend, each in a fresh interpreter.

One backend per process, as in the tests: a worker is Python source that reads its backend
from ``LAMINA_BACKEND`` and prints one JSON object per line.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from typing import Any


def installed_backends() -> set[str]:
    """The backends registered in the ``lamina.backends`` entry-point group, less those
    that ``LAMINA_BENCH_BACKENDS`` (a comma-separated list), when set, does not name."""
    names = {ep.name for ep in importlib.metadata.entry_points(group="lamina.backends")}
    chosen = os.environ.get("LAMINA_BENCH_BACKENDS")
    return names & {n.strip() for n in chosen.split(",")} if chosen else names


def run_per_backend(
    worker: str, backends: Iterable[str], env: dict[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """The JSON records `worker` prints under each of `backends` that is installed (see
    `installed_backends`); `env` adds environment variables for the worker."""
    installed = installed_backends()
    for backend in backends:
        if backend not in installed:
            continue
        out = subprocess.run(
            [sys.executable, "-c", worker],
            env={**os.environ, **(env or {}), "LAMINA_BACKEND": backend},
            capture_output=True,
            text=True,
        )
        if out.returncode:
            raise RuntimeError(f"the {backend} worker failed:\n{out.stderr[-3000:]}")
        for line in out.stdout.strip().splitlines():
            if line.startswith("{"):
                yield json.loads(line)
