"""`DataParallel` on torch started the way torch users start jobs: ``torchrun``.

torchrun sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK; `lamina.distribution.initialize`
reads them and joins a gloo process group. Process 1 starts from other weights than
process 0: as with DDP, process 0's are broadcast before the first step, so the job still
ends where one process on the whole batches ends. The job is the core's two-process job.
"""

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

JOB = pathlib.Path(__file__).parents[2] / "core" / "tests" / "distribution" / "_job.py"
TIMEOUT = 150


def _job_module() -> Any:
    spec = importlib.util.spec_from_file_location("lamina_distribution_job", JOB)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torchrun_replicas_start_from_process_0_and_train_like_one() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMINA_DISTRIBUTION_")}
    env.update(LAMINA_BACKEND="torch", LAMINA_DISTRIBUTION_TIMEOUT="120", OMP_NUM_THREADS="1")
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node",
        "2",
        "--master_addr",
        "127.0.0.1",
        "--master_port",
        str(port),
        str(JOB),
        "perturb",
    ]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"torchrun did not finish within {TIMEOUT} s")
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    line = next(s for s in done.stdout.splitlines() if s.startswith("RESULT "))
    result = json.loads(line[len("RESULT ") :])
    assert result["devices"] == 2
    for got, want in zip(result["weights"], _job_module().reference()[0], strict=True):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5, rtol=0)
