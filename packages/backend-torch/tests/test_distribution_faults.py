"""A `DataParallel` job on torch whose process dies mid-epoch: the survivor stops with a
clear error well within the test's timeout, instead of waiting in a collective."""

from __future__ import annotations

import importlib.util
import pathlib
import time
from typing import Any

FOLDER = pathlib.Path(__file__).parents[2] / "core" / "tests" / "distribution"


def _launcher() -> Any:
    spec = importlib.util.spec_from_file_location(
        "lamina_distribution_launcher", FOLDER / "test_multi_process.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_dead_process_stops_the_others_with_a_clear_error() -> None:
    start = time.monotonic()
    (survivor_code, survivor), (dead_code, _) = _launcher().start_job("die", timeout=120)
    assert dead_code == 3
    assert survivor_code != 0
    assert "another process stopped or cannot be reached" in survivor, survivor[-3000:]
    assert time.monotonic() - start < 100
