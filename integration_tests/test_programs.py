"""Every user program in ``programs/`` runs, unchanged, on every backend it targets.

The programs are written the way Keras 3 users write them (``import lamina as keras``,
then only the Keras 3 API); each asserts what its user would check and exits non-zero
when a check fails. A program names its backends in a header line
(``# backends: jax torch tensorflow``) and may name packages it needs beyond them
(``# requires: tensorflow``). Each (program, backend) pair runs in a fresh interpreter
with ``LAMINA_BACKEND`` set, in an empty working directory with ``TMPDIR`` inside the
test's own temporary directory; a pair whose backend or required package is not
installed in this venv is skipped. The runs start with the session (``conftest.py``'s
`program_runs`, which also says how they are bounded); each test waits for its own.
"""

from __future__ import annotations

import importlib.util
import pathlib
from concurrent.futures import Future
from typing import Any

import pytest

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
BACKENDS = ("numpy", "jax", "torch", "tensorflow")
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
def test_program(program: pathlib.Path, backend: str, program_runs: dict[Any, Future[Any]]):
    done = program_runs[(program, backend)].result()
    if done.returncode is None:
        pytest.fail(
            f"{program.name} on {backend} ran past its timeout ({done.seconds:.0f} s); "
            f"stderr tail:\n{tail(done.stderr)}",
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
