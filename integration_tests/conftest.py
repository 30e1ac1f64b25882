"""Integration tests run on whichever backend LAMINA_BACKEND selects (default: jax).

The user programs of ``test_programs.py`` each run in a fresh interpreter. They start with
the session's first test, ``LAMINA_PROGRAM_WORKERS`` at a time (default: one per core),
so that they run beside the in-process tests (the docs' examples) instead of after them;
each `test_program` then waits for its own run. ``LAMINA_PROGRAM_TIMEOUT`` (seconds,
default 240) bounds one run. Each run gets one BLAS/OpenMP thread unless
``OMP_NUM_THREADS`` is set: the programs are small, and torch's spinning worker threads
slow them by an order of magnitude on a busy machine.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

TIMEOUT_S = int(os.environ.get("LAMINA_PROGRAM_TIMEOUT", "240"))
WORKERS = int(os.environ.get("LAMINA_PROGRAM_WORKERS", str(os.cpu_count() or 1)))


@dataclass
class Run:
    """One program's run: how it ended, what it printed, what it left in its directory."""

    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    seconds: float
    left: list[str]


def run(program: pathlib.Path, backend: str, root: pathlib.Path) -> Run:
    """`program` on `backend` in a fresh interpreter, in an empty directory under `root`."""
    workdir, scratch = root / "cwd", root / "tmp"
    workdir.mkdir()
    scratch.mkdir()
    env = dict(os.environ, LAMINA_BACKEND=backend, TMPDIR=str(scratch))
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(program)],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as timeout:
        stderr = timeout.stderr.decode() if isinstance(timeout.stderr, bytes) else timeout.stderr
        return Run(None, "", stderr or "", time.perf_counter() - start, [])
    left = sorted(p.name for p in workdir.iterdir())
    return Run(done.returncode, done.stdout, done.stderr, time.perf_counter() - start, left)


@pytest.fixture(scope="session", autouse=True)
def program_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[tuple[pathlib.Path, str], Future[Run]]]:
    """Every selected, unskipped (program, backend) run, started `WORKERS` at a time."""
    selected = [
        item.callspec.params  # type: ignore[attr-defined]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_program"
        and item.get_closest_marker("skip") is None
    ]
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {
            (p["program"], p["backend"]): pool.submit(
                run, p["program"], p["backend"], tmp_path_factory.mktemp(p["program"].stem)
            )
            for p in selected
        }
        yield futures
        for future in futures.values():  # a stopped session (-x) starts no more
            future.cancel()
