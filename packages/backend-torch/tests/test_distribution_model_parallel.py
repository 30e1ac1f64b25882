"""`ModelParallel` on torch: DTensors over a gloo job of one process per device, on 1x2, 2x1
and 2x2 meshes.

Each process holds only its shard of each split variable (and of its optimizer slots);
outputs, gradients and the trained weights equal those of the same model on one process
(1e-5); a plain weights file loads into the split model (each process takes its part), and
the split model saves whole arrays that one process loads back.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

import numpy as np
import pytest

import lamina
from lamina import distribution as dist

HERE = pathlib.Path(__file__).parent
LAUNCHER = HERE.parents[1] / "core" / "tests" / "distribution" / "test_multi_process.py"
TOL = 1e-5


def _module(path: pathlib.Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def job() -> Any:
    return _module(HERE / "_model_parallel_job.py", "lamina_model_parallel_job")


@pytest.fixture(scope="module")
def reference(job: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("model_parallel")
    return str(folder), job.reference(str(folder))


def _processes(mesh: str) -> int:
    rows, columns = (int(n) for n in mesh.split("x"))
    return rows * columns


def _run(mesh: str, folder: str) -> list[dict[str, Any]]:
    """Every process's results of the job on `mesh` (the core's launcher, one process per
    device of the mesh)."""
    launcher = _module(LAUNCHER, "lamina_distribution_launcher")
    launcher.JOB = HERE / "_model_parallel_job.py"
    done = launcher.start_job(mesh, folder, processes=_processes(mesh), timeout=180)
    failed = [(rank, out[-4000:]) for rank, (code, out) in enumerate(done) if code != 0]
    assert not failed, failed
    lines = [next(s for s in out.splitlines() if s.startswith("RESULT ")) for _, out in done]
    return [json.loads(line[len("RESULT ") :]) for line in lines]


@pytest.mark.parametrize(
    ("mesh", "shards", "parts"),
    [
        # "model" has two devices: kernels split along it, hidden's bias too.
        ("1x2", [[6, 4], [4], [4, 4], [4]], [[8, 2], [8, 4]]),
        # "model" has one device: every variable whole; the batch is split instead.
        ("2x1", [[6, 8], [8], [8, 4], [4]], [[4, 4], [4, 8]]),
        # Four processes: variables split along "model", the batch along "batch".
        ("2x2", [[6, 4], [4], [4, 4], [4]], [[4, 2], [4, 4]]),
    ],
)
def test_model_parallel_over_two_processes_matches_one(
    mesh: str,
    shards: list[list[int]],
    parts: list[list[int]],
    reference: tuple[str, dict[str, Any]],
    job: Any,
) -> None:
    folder, want = reference
    results = _run(mesh, folder)
    x, _ = job.data()
    assert all(got["seed_state"] == results[0]["seed_state"] for got in results)
    for got in results:
        assert f"holds one device per process of the job ({len(results)})" in got["refused"]
        assert got["shards"] == shards
        assert got["bias_filled"] == [shards[1]]  # only this process's shard of zeros
        # `distribute_tensor` (8x4) and the map's "hidden/output" key (an 8x8 output of
        # the global batch) split over both axes.
        both = "(Shard(dim=0), Shard(dim=1))"
        assert got["distributed_tensor"] == [parts[0], both]
        assert got["hidden_output"] == [parts[1], both]
        assert got["slot_shards"] == [shards[0], shards[0]]  # Adam's slots follow the kernel
        rows = np.asarray(got["rows"])
        # Loaded from the plain file: the same predictions, gradients and training.
        np.testing.assert_allclose(got["predict"], want["predict"][rows], atol=TOL, rtol=0)
        for g, w in zip(got["gradients"], want["gradients"], strict=True):
            np.testing.assert_allclose(np.asarray(g), w, atol=TOL, rtol=0)
        np.testing.assert_allclose(got["loss"], want["loss"], atol=TOL, rtol=0)
        # [loss, mae] of the global batches, on every process.
        np.testing.assert_allclose(got["evaluate"], want["evaluate"], atol=TOL, rtol=0)
        for g, w in zip(got["weights"], want["weights"], strict=True):
            np.testing.assert_allclose(np.asarray(g), w, atol=TOL, rtol=0)
        trained = want["trained_predict"][rows]
        np.testing.assert_allclose(got["trained_predict"], trained, atol=TOL, rtol=0)
        # The trained model saved whole by one process, loaded split (slots included).
        assert got["restored_shards"] == [shards[0]] * 3
        np.testing.assert_allclose(got["restored_predict"], trained, atol=TOL, rtol=0)
        for g, w in zip(got["resumed_weights"], want["weights"], strict=True):
            np.testing.assert_allclose(np.asarray(g), w, atol=TOL, rtol=0)
    # ModelCheckpoint's last save (process 0's file) holds the trained weights whole.
    checkpoint = job.make_model()
    checkpoint.load_weights(f"{folder}/checkpoint-{mesh}.weights.h5")
    for g, w in zip(checkpoint.get_weights(), want["weights"], strict=True):
        np.testing.assert_allclose(g, w, atol=TOL, rtol=0)
    # The split weights (and the whole model), saved whole, load on one process.
    plain = job.make_model()
    plain.load_weights(f"{folder}/sharded.weights.h5")
    loaded = lamina.saving.load_model(f"{folder}/sharded.lamina")
    for model in (plain, loaded):
        for g, w in zip(model.get_weights(), want["weights"], strict=True):
            np.testing.assert_allclose(g, w, atol=TOL, rtol=0)
        trained = want["trained_predict"]
        np.testing.assert_allclose(model.predict(x, verbose=0), trained, atol=TOL, rtol=0)
    slots = [v.numpy() for v in loaded.optimizer.variables]
    for g, w in zip(slots, want["optimizer"], strict=True):  # Adam's state, gathered too
        np.testing.assert_allclose(g, w, atol=TOL, rtol=0)


def test_a_mesh_of_several_devices_outside_a_job_is_refused() -> None:
    mesh = dist.DeviceMesh((1, 2), ("batch", "model"), ["cpu:0", "cpu:1"])
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "model")
    refused = pytest.raises(ValueError, match=r"one device per process.*has 2 devices")
    with dist.ModelParallel(layout_map=layout_map).scope(), refused:
        lamina.layers.Dense(4).build((None, 3))


def test_a_one_device_mesh_in_one_process_keeps_plain_tensors() -> None:
    mesh = dist.DeviceMesh((1, 1), ("batch", "model"), ["cpu:0"])
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "model")
    x = np.ones((4, 3), "float32")
    with dist.ModelParallel(layout_map=layout_map).scope():
        layer = lamina.layers.Dense(2, kernel_initializer="ones")
        out = layer(x)
    assert type(layer.kernel.value.data) is lamina.ops.convert_to_tensor(x).__class__
    np.testing.assert_allclose(lamina.ops.convert_to_numpy(out), np.full((4, 2), 3.0))
