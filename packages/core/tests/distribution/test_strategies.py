"""`DataParallel` and `ModelParallel`: the layouts they give, and which backend runs them.

The layout rules are backend-neutral (meshes of named devices); putting a strategy in
effect needs a backend that distributes, and NumPy refuses with the backends that do.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
import pytest

import lamina
from lamina import distribution as dist
from lamina.backend import current

DEVICES = [f"cpu:{i}" for i in range(4)]


@pytest.fixture(autouse=True)
def _no_distribution_after() -> Iterator[None]:
    yield
    if current().distribution is not None:
        dist.set_distribution(None)


def runs(strategy: str) -> bool:
    ops = current().distribution
    return ops is not None and strategy in ops.strategies()


def model_parallel() -> dist.ModelParallel:
    mesh = dist.DeviceMesh((2, 2), ("batch", "model"), devices=DEVICES)
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*kernel"] = (None, "model")
    return dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def variable(path: str, shape: tuple[int, ...]) -> SimpleNamespace:
    return SimpleNamespace(path=path, shape=shape)


def test_data_parallel_splits_batches_and_replicates_variables() -> None:
    mesh = dist.DeviceMesh((4,), ("data",), devices=DEVICES)
    strategy = dist.DataParallel(device_mesh=mesh)
    assert strategy.batch_dim_name == "data" and strategy.device_mesh is mesh
    assert strategy.get_data_layout((16, 3, 2)).axes == ("data", None, None)
    assert strategy.get_variable_layout(variable("dense/kernel", (3, 4))).axes == (None, None)
    assert strategy.get_tensor_layout("dense/output") is None
    assert dist.DataParallel(devices=DEVICES).device_mesh.axis_names == ("batch",)
    with pytest.raises(ValueError, match="not both"):
        dist.DataParallel(device_mesh=mesh, devices=DEVICES)


def test_model_parallel_reads_the_layout_map() -> None:
    strategy = model_parallel()
    assert strategy.get_data_layout((8, 5)).axes == ("batch", None)
    assert strategy.get_variable_layout(variable("dense/kernel", (5, 8))).axes == (None, "model")
    assert strategy.get_variable_layout(variable("dense/bias", (8,))).axes == (None,)
    assert strategy.get_tensor_layout("dense/kernel").axes == (None, "model")
    assert strategy.get_tensor_layout("dense/output") is None
    with pytest.raises(ValueError, match="does not fit its shape"):
        strategy.get_variable_layout(variable("dense/kernel", (5, 8, 1)))
    with pytest.raises(ValueError, match=r"size 7 .* multiple of 2"):
        strategy.get_variable_layout(variable("dense/kernel", (5, 7)))


def test_model_parallel_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="layout_map"):
        dist.ModelParallel(layout_map=None)
    with pytest.raises(ValueError, match="batch_dim_name"):
        dist.ModelParallel(layout_map=model_parallel().layout_map, batch_dim_name="rows")
    # Keras 3 takes and ignores `device_mesh` (the map has one); nothing else.
    dist.ModelParallel(layout_map=model_parallel().layout_map, device_mesh=None)
    with pytest.raises(TypeError, match="seed"):
        dist.ModelParallel(layout_map=model_parallel().layout_map, seed=1)


def test_set_distribution_and_scope_on_each_backend() -> None:
    strategy = (
        dist.DataParallel(devices=dist.list_devices()[:1])
        if runs("DataParallel")
        else dist.DataParallel(devices=DEVICES[:1])
    )
    if not runs("DataParallel"):
        with pytest.raises(RuntimeError, match="Backends that distribute: jax, tensorflow, torch"):
            dist.set_distribution(strategy)
        with pytest.raises(RuntimeError, match="Backends that distribute"), strategy.scope():
            pass
        with pytest.raises(RuntimeError, match="runs on one device only"):
            dist.list_devices()
        assert dist.distribution() is None
        return
    assert dist.distribution() is None
    with strategy.scope():
        assert dist.distribution() is strategy
    assert dist.distribution() is None
    dist.set_distribution(strategy)
    assert dist.distribution() is strategy
    dist.set_distribution(None)
    assert dist.distribution() is None
    dist.set_distribution(strategy)
    lamina.utils.clear_session()  # a new session starts without a strategy, as in Keras 3
    assert dist.distribution() is None
    with pytest.raises(ValueError, match="Received: value='data'"):
        dist.set_distribution("data")  # type: ignore[arg-type]


def test_model_parallel_names_the_backends_that_run_it() -> None:
    if runs("ModelParallel"):
        pytest.skip(f"the {current().name} backend runs ModelParallel")
    strategy = model_parallel()
    with pytest.raises(RuntimeError, match="jax"):
        dist.set_distribution(strategy)
    assert dist.distribution() is None


def test_devices_and_processes() -> None:
    if current().distribution is None:
        assert dist.num_processes() == 1 and dist.process_id() == 0
        return
    devices = dist.list_devices()
    assert devices and all(d.split(":")[0] in ("cpu", "gpu", "tpu") for d in devices)
    assert dist.get_device_count() == len(devices)
    assert dist.list_devices("cpu")[0].startswith("cpu:")
    assert dist.num_processes() == 1 and dist.process_id() == 0
    with pytest.raises(ValueError, match="device_type"):
        dist.list_devices("abacus")


def test_initialize_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="num_processes"):
        dist.initialize("localhost:1234", num_processes=0, process_id=0)
    with pytest.raises(ValueError, match="process_id"):
        dist.initialize("localhost:1234", num_processes=2, process_id=2)
    with pytest.raises(ValueError, match="lists 2 addresses but num_processes=3"):
        dist.initialize("a:1,b:2", num_processes=3, process_id=0)


def test_distribute_tensor_on_one_device() -> None:
    x = np.arange(12, dtype="float32").reshape(4, 3)
    symbolic = lamina.KerasTensor((None, 3))
    layout = dist.TensorLayout(("batch", None), dist.DeviceMesh((1,), ("batch",), DEVICES[:1]))
    assert dist.distribute_tensor(symbolic, layout) is symbolic
    with pytest.raises(ValueError, match="rank 2"):
        dist.distribute_tensor(
            lamina.ops.convert_to_tensor(x), dist.TensorLayout(("batch",), layout.device_mesh)
        )
    with pytest.raises(ValueError, match="with a `device_mesh`"):
        dist.distribute_tensor(x, dist.TensorLayout(("batch", None)))
    if current().distribution is None:
        with pytest.raises(RuntimeError, match="one device only"):
            dist.distribute_tensor(lamina.ops.convert_to_tensor(x), layout)
        return
    mesh = dist.DeviceMesh((1,), ("batch",), dist.list_devices()[:1])
    out = dist.distribute_tensor(
        lamina.ops.convert_to_tensor(x), dist.TensorLayout(("batch", None), mesh)
    )
    np.testing.assert_array_equal(lamina.ops.convert_to_numpy(out), x)


def test_variables_and_optimizer_slots_take_the_strategy_layout() -> None:
    if not runs("DataParallel"):
        pytest.skip(f"the {current().name} backend does not distribute")
    from lamina.backend.kit import variable_layout

    strategy = dist.DataParallel(devices=dist.list_devices()[:1])
    with strategy.scope():
        model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
        model.compile(optimizer="adam", loss="mse")
        x = np.ones((4, 3), "float32")
        model.fit(x, np.zeros((4, 2), "float32"), epochs=1, verbose=0)
        kernel = model.layers[0].kernel
        assert variable_layout(kernel).axes == (None, None)
        assert len(model.optimizer.variables) > 2
    assert variable_layout(kernel) is None
