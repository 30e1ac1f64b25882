"""The loading fuzzer's short, derandomized run: what `nox -s fuzz` does 10,000 times.

`tools/fuzz_loading.py` loads each hostile file in a worker process under a time limit,
so code execution, side effects, hangs and crashes are caught as well as foreign
exception types and weights that load silently wrong. Every outcome but "loaded" and
"refused" is a finding.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

FUZZER = pathlib.Path(__file__).resolve().parents[3] / "tools" / "fuzz_loading.py"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not FUZZER.exists(),
    reason="the fuzzer's workers use select() on pipes; it lives in the repository's tools/",
)


def test_short_fuzz_run_has_no_findings():
    done = subprocess.run(
        [sys.executable, str(FUZZER), "--cases", "180", "--seed", "0", "--grammar-models", "4",
         "--timeout", "30", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ},
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["findings"] == [], json.dumps(report["findings"][:10], indent=1)
    assert set(report["outcomes"]) <= {"loaded", "refused"}
    # The mutations reach both ends: some files still load, most are refused.
    assert report["outcomes"].get("refused", 0) > 0
    assert report["outcomes"].get("loaded", 0) > 0
