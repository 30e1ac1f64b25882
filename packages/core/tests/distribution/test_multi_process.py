"""Two processes on localhost run `DataParallel` and end where one process on the whole
batches ends (jax: `jax.distributed` with CPU collectives; torch: `torch.distributed`
with gloo). Each process is a fresh interpreter, bounded by a timeout."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import socket
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from lamina.backend import current

JOB = pathlib.Path(__file__).with_name("_job.py")
TIMEOUT = 150


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_job(*args: str, processes: int = 2, timeout: float = TIMEOUT) -> list[tuple[int, str]]:
    """Run `processes` copies of `_job.py` as one job: each one's exit code and output."""
    port = _free_port()
    procs = []
    for rank in range(processes):
        env = dict(os.environ)
        env.pop("XLA_FLAGS", None)  # one device per process
        env.update(
            LAMINA_DISTRIBUTION_JOB_ADDRESSES=f"127.0.0.1:{port}",
            LAMINA_DISTRIBUTION_NUM_PROCESSES=str(processes),
            LAMINA_DISTRIBUTION_PROCESS_ID=str(rank),
            LAMINA_DISTRIBUTION_TIMEOUT="60",
            OMP_NUM_THREADS="1",
        )
        procs.append(
            subprocess.Popen(
                [sys.executable, str(JOB), *args],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=timeout)[0])
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail(f"the {processes}-process job did not finish within {timeout} s")
    return [(p.returncode, out) for p, out in zip(procs, outputs)]


def run_job(*args: str, processes: int = 2) -> dict[str, Any]:
    """Start `processes` copies of `_job.py` as one job; process 0's result."""
    done = start_job(*args, processes=processes)
    failed = [(i, rc, out) for i, (rc, out) in enumerate(done) if rc != 0]
    if failed:
        text = "\n".join(out[-3000:] for _, _, out in failed)
        if "UNIMPLEMENTED" in text and "collective" in text.lower():
            pytest.skip("this jax build cannot run multi-process CPU collectives")
        pytest.fail(f"job processes {[(i, rc) for i, rc, _ in failed]} failed:\n{text}")
    line = next(s for s in done[0][1].splitlines() if s.startswith("RESULT "))
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return result


def _needs_data_parallel() -> None:
    ops = current().distribution
    if ops is None or "DataParallel" not in ops.strategies():
        pytest.skip(f"the {current().name} backend does not run DataParallel")


def test_two_processes_train_like_one_on_the_whole_batch() -> None:
    _needs_data_parallel()
    sys.path.insert(0, str(JOB.parent))
    try:
        import _job
    finally:
        sys.path.remove(str(JOB.parent))
    weights, losses, scores, predictions = _job.reference()
    with_tf = importlib.util.find_spec("tensorflow") is not None
    with_torch = importlib.util.find_spec("torch") is not None
    result = run_job(*(["dataset"] if with_tf else []), *(["loader"] if with_torch else []))
    assert result["devices"] == 2
    for got, want in zip(result["weights"], weights, strict=True):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=0)
    # The logs cover both processes' rows: the loss and metrics of the whole batches.
    np.testing.assert_allclose(result["loss"], losses, atol=1e-5, rtol=0)
    np.testing.assert_allclose(result["evaluate"], scores, atol=1e-5, rtol=0)
    rows = np.asarray(result["predict_rows"])
    np.testing.assert_allclose(result["predict"], predictions[rows], atol=1e-5, rtol=0)
    # The same run from a PyDataset (and a torch DataLoader) of the global batches.
    for key in ("py_dataset_weights", *(["loader_weights"] if with_torch else [])):
        for got, want in zip(result[key], weights, strict=True):
            np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=0, err_msg=key)
    if with_tf:  # the same run from a tf.data.Dataset of the global batches
        for got, want in zip(result["dataset_weights"], weights, strict=True):
            np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=0)
