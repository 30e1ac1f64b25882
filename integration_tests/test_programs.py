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
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import time

import pytest

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
BACKENDS = ("numpy", "jax", "torch", "tensorflow")
TIMEOUT_S = int(os.environ.get("LAMINA_PROGRAM_TIMEOUT", "240"))
TAIL_CHARS = 4000

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


@pytest.mark.parametrize(("program", "backend"), cases())
def test_program(program: pathlib.Path, backend: str, tmp_path: pathlib.Path):
    workdir, scratch = tmp_path / "cwd", tmp_path / "tmp"
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
        pytest.fail(
            f"{program.name} on {backend} ran past {TIMEOUT_S} s; stderr tail:\n"
            f"{tail(stderr or '')}",
            pytrace=False,
        )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        pytest.fail(
            f"{program.name} on {backend} exited {done.returncode} after {seconds:.1f} s.\n"
            f"--- stdout tail ---\n{tail(done.stdout)}\n--- stderr tail ---\n{tail(done.stderr)}",
            pytrace=False,
        )
    left = sorted(p.name for p in workdir.iterdir())
    assert not left, f"{program.name} wrote {left} into its working directory (not a temp dir)"
