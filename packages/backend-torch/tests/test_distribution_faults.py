"""A `DataParallel` job on torch whose process dies mid-epoch: the survivor stops with a
clear error well within the test's timeout, instead of waiting in a collective, and the job
started again resumes from `BackupAndRestore`'s last epoch to the uninterrupted result."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import time
from typing import Any

import numpy as np

FOLDER = pathlib.Path(__file__).parents[2] / "core" / "tests" / "distribution"


def _launcher() -> Any:
    spec = importlib.util.spec_from_file_location(
        "lamina_distribution_launcher", FOLDER / "test_multi_process.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_dead_process_stops_the_others_and_the_job_resumes(tmp_path: pathlib.Path) -> None:
    launcher = _launcher()
    backup = f"backup={tmp_path / 'backup'}"
    start = time.monotonic()
    (survivor_code, survivor), (dead_code, _) = launcher.start_job("die", backup, timeout=120)
    assert dead_code == 3
    assert survivor_code != 0
    assert "another process stopped or cannot be reached" in survivor, survivor[-3000:]
    assert time.monotonic() - start < 100

    resumed = launcher.run_job(backup)  # runs only the last epoch, from the backup
    assert len(resumed["loss"]) == 1
    sys.path.insert(0, str(FOLDER))
    try:
        import _job
    finally:
        sys.path.remove(str(FOLDER))
    weights = _job.reference()[0]
    for got, want in zip(resumed["weights"], weights, strict=True):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=0)
