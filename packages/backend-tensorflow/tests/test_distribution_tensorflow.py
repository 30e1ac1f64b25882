"""`lamina.distribution` on TensorFlow within one process of one device: the devices, a
one-device `DataParallel`, and what is refused (ModelParallel, unknown devices, layouts
the strategies cannot follow, an `initialize` without a job)."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import distribution as dist
from lamina.backend import current

pytestmark = pytest.mark.skipif(
    current().name != "tensorflow", reason="tests tf.distribute's part of lamina.distribution"
)


def _model() -> lamina.Model:
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    return model


def test_devices_are_tensorflows_logical_devices() -> None:
    import tensorflow as tf

    cpus = tf.config.list_logical_devices("CPU")
    assert dist.list_devices("cpu") == [f"cpu:{i}" for i in range(len(cpus))]
    assert dist.get_device_count("cpu") == len(cpus)
    assert dist.num_processes() == 1 and dist.process_id() == 0
    if not tf.config.list_logical_devices("GPU"):
        with pytest.raises(ValueError, match="device_type='gpu'"):
            dist.list_devices("gpu")


def test_one_device_trains_as_without_a_strategy() -> None:
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    y = np.ones((4, 2), "float32")
    plain = _model()
    with dist.DataParallel(devices=["cpu:0"]).scope():
        replica = _model()
        replica.set_weights(plain.get_weights())
        replica.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
        scores = replica.evaluate(x, y, verbose=0)
    plain.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(replica.get_weights(), plain.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6, rtol=0)
    np.testing.assert_allclose(scores, plain.evaluate(x, y, verbose=0), atol=1e-6, rtol=0)


def test_model_parallel_is_refused_with_the_backends_that_run_it() -> None:
    assert dist.distribution() is None
    mesh = dist.DeviceMesh((1, 1), ("batch", "model"), devices=["cpu:0"])
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "model")
    strategy = dist.ModelParallel(layout_map=layout_map)
    with pytest.raises(RuntimeError, match="ModelParallel does not run on the tensorflow"):
        dist.set_distribution(strategy)
    assert dist.distribution() is None


def test_a_mesh_naming_a_missing_device_is_refused() -> None:
    strategy = dist.DataParallel(devices=["cpu:0", "cpu:7"])
    with strategy.scope(), pytest.raises(ValueError, match="names device 'cpu:7'"):
        _model()


def test_distribute_tensor_follows_batch_layouts_only() -> None:
    x = np.arange(8, dtype="float32").reshape(4, 2)
    one = dist.DeviceMesh((1,), ("batch",), ["cpu:0"])
    out = dist.distribute_tensor(x, dist.TensorLayout(("batch", None), one))
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(out), x)
    out = dist.distribute_tensor(x, dist.TensorLayout((None, None), one))
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(out), x)
    grid = dist.DeviceMesh((1, 1), ("batch", "model"), ["cpu:0"])
    with pytest.raises(ValueError, match="ModelParallel layouts run on the jax backend"):
        dist.distribute_tensor(x, dist.TensorLayout((None, "model"), grid))


def test_initialize_needs_a_job(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    for name in ("JOB_ADDRESSES", "NUM_PROCESSES", "PROCESS_ID"):
        monkeypatch.delenv(f"LAMINA_DISTRIBUTION_{name}", raising=False)
        monkeypatch.delenv(f"KERAS_DISTRIBUTION_{name}", raising=False)
    with pytest.raises(ValueError, match="set TF_CONFIG"):
        dist.initialize()
    with pytest.raises(ValueError, match="job_addresses='localhost'"):
        dist.initialize("localhost", num_processes=2, process_id=0)
    monkeypatch.setenv("TF_CONFIG", "{worker")
    with pytest.raises(ValueError, match="TF_CONFIG is not JSON"):
        dist.initialize()
    assert dist.num_processes() == 1
