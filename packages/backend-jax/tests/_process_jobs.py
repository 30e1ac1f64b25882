"""Two-process JAX jobs on localhost (`jax.distributed`, CPU collectives, one device each)
for the tests beside this file, started by the core's launcher
(`packages/core/tests/distribution/test_multi_process.py`). A test reads this file with
``runpy.run_path`` (the tests are not a package)."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from types import ModuleType
from typing import Any

import pytest

LAUNCHER = pathlib.Path(__file__).parents[2] / "core" / "tests" / "distribution"


def load(path: pathlib.Path) -> ModuleType:
    """The Python file at `path` as a module (a job script, for its reference run)."""
    spec = importlib.util.spec_from_file_location(f"lamina_jax_tests_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def results(job: pathlib.Path, *args: str, timeout: float = 120) -> list[dict[str, Any]]:
    """Run two copies of `job` as one job: the ``RESULT <json>`` line of each process.

    Skips where this jax build has no multi-process CPU collectives; fails with the output
    of the processes that failed.
    """
    launcher: Any = load(LAUNCHER / "test_multi_process.py")
    launcher.JOB = job
    done = launcher.start_job(*args, timeout=timeout)
    failed = [(rank, out[-4000:]) for rank, (code, out) in enumerate(done) if code != 0]
    if failed and any("UNIMPLEMENTED" in out and "ollective" in out for _, out in failed):
        pytest.skip("this jax build cannot run multi-process CPU collectives")
    assert not failed, failed
    lines = [next(s for s in out.splitlines() if s.startswith("RESULT ")) for _, out in done]
    return [json.loads(line[len("RESULT ") :]) for line in lines]
