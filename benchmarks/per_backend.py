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
    """The backends registered in the ``lamina.backends`` entry-point group."""
    return {ep.name for ep in importlib.metadata.entry_points(group="lamina.backends")}


def run_per_backend(worker: str, backends: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON records `worker` prints under each of `backends` that is installed (and
    named in ``LAMINA_BENCH_BACKENDS``, a comma-separated list, when that is set)."""
    installed = installed_backends()
    chosen = os.environ.get("LAMINA_BENCH_BACKENDS")
    if chosen:
        installed &= {name.strip() for name in chosen.split(",")}
    for backend in backends:
        if backend not in installed:
            continue
        out = subprocess.run(
            [sys.executable, "-c", worker],
            env={**os.environ, "LAMINA_BACKEND": backend},
            capture_output=True,
            text=True,
            check=True,
        )
        for line in out.stdout.strip().splitlines():
            if line.startswith("{"):
                yield json.loads(line)
