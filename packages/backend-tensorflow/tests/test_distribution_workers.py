"""`DataParallel` on TensorFlow's own engine, in fresh interpreters bounded by a timeout:
two logical CPU devices of one process (`MirroredStrategy`), and two worker processes of
one job described by ``TF_CONFIG`` (`MultiWorkerMirroredStrategy`). Either ends where one
device trained on the whole batches ends."""

from __future__ import annotations

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

JOB = pathlib.Path(__file__).with_name("_distribution_job.py")
TIMEOUT = 120
TOLERANCE = 1e-5  # float32 sums taken in another order (per replica, then all-reduced)

pytestmark = pytest.mark.skipif(
    current().name != "tensorflow", reason="runs tf.distribute strategies"
)


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _start(mode: str, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(JOB), mode, *args],
        env={**os.environ, "OMP_NUM_THREADS": "1", "TF_CPP_MIN_LOG_LEVEL": "2", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _results(procs: list[subprocess.Popen[str]]) -> list[dict[str, Any] | None]:
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=TIMEOUT)[0])
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        pytest.fail(f"the job did not finish within {TIMEOUT} s")
    failed = [(i, p.returncode, out) for i, (p, out) in enumerate(zip(procs, outputs))]
    failed = [f for f in failed if f[1] != 0]
    if failed:
        text = "\n".join(out[-3000:] for _, _, out in failed)
        pytest.fail(f"processes {[(i, rc) for i, rc, _ in failed]} failed:\n{text}")
    found = []
    for out in outputs:
        line = next((s for s in out.splitlines() if s.startswith("RESULT ")), None)
        found.append(None if line is None else json.loads(line[len("RESULT ") :]))
    return found


def _assert_same_run(got: dict[str, Any], want: dict[str, Any]) -> None:
    for a, b in zip(got["weights"], want["weights"], strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=TOLERANCE, rtol=0)
    # The logs cover every replica's rows: the loss and metrics of the whole batches.
    np.testing.assert_allclose(got["loss"], want["loss"], atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], atol=TOLERANCE, rtol=0)


def test_two_devices_of_one_process_train_like_one_device(tmp_path: pathlib.Path) -> None:
    (out,) = _results([_start("devices", {}, str(tmp_path))])
    assert out is not None
    assert out["devices"] == ["cpu:0", "cpu:1"] and out["count"] == 2
    assert out["mirrored"] and len(out["copies"]) == 2 and out["copies_agree"]
    _assert_same_run(out["data_parallel"], out["single"])
    assert out["tensor_parts"] == [[4, 5], [4, 5]]  # distribute_tensor: a part per device
    # Predictions (on the first replica) and the saved weights are those of the replicas.
    single = out["single_predict"]
    np.testing.assert_allclose(out["dp_predict"], single, atol=TOLERANCE, rtol=0)
    np.testing.assert_allclose(out["reloaded_predict"], out["dp_predict"], atol=0, rtol=0)
    assert "created outside the strategy" in out["outside"]
    assert "written by one replica's step" in out["custom_step"]
    assert out["after_scope"]


def test_two_workers_with_tf_config_train_like_one_process() -> None:
    sys.path.insert(0, str(JOB.parent))
    try:
        import _distribution_job as job
    finally:
        sys.path.remove(str(JOB.parent))
    x, y = job.data()
    want = job.train(job.make_model(), x, y, job.GLOBAL_BATCH)
    workers = [f"127.0.0.1:{port}" for port in _free_ports(2)]
    procs = [
        _start(
            "worker",
            {
                "TF_CONFIG": json.dumps(
                    {"cluster": {"worker": workers}, "task": {"type": "worker", "index": i}}
                ),
                "LAMINA_DISTRIBUTION_TIMEOUT": "60",
            },
        )
        for i in range(2)
    ]
    out, other = _results(procs)
    assert out is not None and other is not None
    assert out["processes"] == 2 and out["count"] == 2
    _assert_same_run(out, want)
    # `seed=None` draws agree: every worker holds worker 0's global seed state.
    assert other["seed_state"] == out["seed_state"]
