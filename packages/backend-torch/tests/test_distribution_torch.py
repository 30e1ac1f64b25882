"""torch's `DataParallel` in one process: one replica per process, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import distribution as dist


def _model() -> lamina.Model:
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def test_one_process_trains_as_without_a_strategy() -> None:
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 2), "float32")
    plain = _model()
    with dist.DataParallel().scope():  # the one device of this process
        assert dist.list_devices() == ["cpu:0"] or dist.list_devices()[0].startswith("gpu")
        replica = _model()
        replica.set_weights(plain.get_weights())
        replica.fit(x, y, epochs=2, verbose=0)
    plain.fit(x, y, epochs=2, verbose=0)
    for a, b in zip(replica.get_weights(), plain.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6, rtol=0)


def test_a_mesh_of_several_devices_in_one_process_is_refused() -> None:
    with dist.DataParallel(devices=["cpu:0", "cpu:1"]).scope():
        model = _model()
        with pytest.raises(ValueError, match="one device per process \\(1\\), but it has 2"):
            model.fit(np.ones((4, 3), "float32"), np.zeros((4, 2), "float32"), verbose=0)


def test_layouts_split_only_over_processes() -> None:
    mesh = dist.DeviceMesh((1,), ("batch",), ["cpu:0"])
    x = lamina.ops.convert_to_tensor(np.arange(8, dtype="float32").reshape(4, 2))
    out = dist.distribute_tensor(x, dist.TensorLayout(("batch", None), mesh))
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(out), np.asarray(x))
    grid = dist.DeviceMesh((1, 1), ("batch", "model"), ["cpu:0"])
    with pytest.raises(ValueError, match="need `ModelParallel` in a job"):
        dist.distribute_tensor(x, dist.TensorLayout(("batch", "model"), grid))
