"""Every user program in ``programs/`` runs, unchanged, on every backend it targets.

The programs are written the way Keras 3 users write them (``import lamina as keras``,
then only the Keras 3 API); each asserts what its user would check and exits non-zero
when a check fails. A program names its backends in a header line
(``# backends: jax torch tensorflow``) and may name packages it needs beyond them
(``# requires: tensorflow``). Each (program, backend) pair runs in a fresh interpreter
with ``LAMINA_BACKEND`` set, in an empty working directory with ``TMPDIR`` inside the
test's own temporary directory; a pair whose backend or required package is not
installed in this venv is skipped.

``LAMINA_PROGRAM_TIMEOUT`` (seconds, default 240) bounds one run. Each run gets one
BLAS/OpenMP thread unless ``OMP_NUM_THREADS`` is set: the programs are small, and
torch's spinning worker threads slow them by an order of magnitude on a busy machine.
Since each run keeps to about one core, the selected runs start ahead of their tests,
``LAMINA_PROGRAM_WORKERS`` at a time (default: one per core); each test waits for its own.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
BACKENDS = ("numpy", "jax", "torch", "tensorflow")
TIMEOUT_S = int(os.environ.get("LAMINA_PROGRAM_TIMEOUT", "240"))
TAIL_CHARS = 4000
WORKERS = int(os.environ.get("LAMINA_PROGRAM_WORKERS", str(os.cpu_count() or 1)))

# Lamina bugs that make a program fail; each entry must fail (strict) until it is fixed.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def header(path: pathlib.Path, key: str) -> list[str]:
    """The words after ``# <key>:`` in the program's leading comment lines."""
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        name, _, value = line.lstrip("# ").partition(":")
        if name.strip() == key:
            return value.split()
    return []


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def cases() -> list:
    params = []
    for path in sorted(PROGRAMS.glob("*.py")):
        targets = header(path, "backends")
        assert targets, f"{path.name} has no '# backends:' header line"
        unknown = set(targets) - set(BACKENDS)
        assert not unknown, f"{path.name} names unknown backends {sorted(unknown)}"
        requires = header(path, "requires")
        for backend in targets:
            marks = []
            missing = [m for m in (backend, f"lamina_{backend}", *requires) if not installed(m)]
            if missing:
                marks.append(pytest.mark.skip(reason=f"not installed here: {', '.join(missing)}"))
            reason = KNOWN_FAILURES.get((path.stem, backend))
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            params.append(pytest.param(path, backend, marks=marks, id=f"{path.stem}-{backend}"))
    return params


def tail(text: str) -> str:
    return text if len(text) <= TAIL_CHARS else "...\n" + text[-TAIL_CHARS:]


def test_enough_programs():
    programs = sorted(PROGRAMS.glob("*.py"))
    assert len(programs) >= 20, [p.name for p in programs]
    for path in programs:
        source = path.read_text()
        assert "import lamina as keras" in source, f"{path.name} must import lamina as keras"


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


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[tuple[pathlib.Path, str], Future[Run]]]:
    """Every selected, unskipped (program, backend) run, started `WORKERS` at a time."""
    selected = [
        item.callspec.params  # type: ignore[attr-defined]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_program"
        and item.path == request.path
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


@pytest.mark.parametrize(("program", "backend"), cases())
def test_program(
    program: pathlib.Path, backend: str, runs: dict[tuple[pathlib.Path, str], Future[Run]]
):
    done = runs[(program, backend)].result()
    if done.returncode is None:
        pytest.fail(
            f"{program.name} on {backend} ran past {TIMEOUT_S} s; stderr tail:\n"
            f"{tail(done.stderr)}",
            pytrace=False,
        )
    if done.returncode != 0:
        pytest.fail(
            f"{program.name} on {backend} exited {done.returncode} after {done.seconds:.1f} s.\n"
            f"--- stdout tail ---\n{tail(done.stdout)}\n--- stderr tail ---\n{tail(done.stderr)}",
            pytrace=False,
        )
    assert not done.left, (
        f"{program.name} wrote {done.left} into its working directory (not a temp dir)"
    )
