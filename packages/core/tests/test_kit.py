"""`lamina.backend.kit`: the hooks a backend's training step and lamina-saving call."""

from __future__ import annotations

import numpy as np

import lamina
from lamina import layers
from lamina.backend import kit


def compiled_model() -> lamina.Model:
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    model.compile("sgd", "mse")
    return model


def test_track_loss_weights_each_batch_by_its_size() -> None:
    model = compiled_model()
    kit.track_loss(model, 1.0, np.zeros((4, 3), "float32"))
    kit.track_loss(model, 4.0, np.zeros((1, 3), "float32"))
    np.testing.assert_allclose(float(model.get_metrics_result()["loss"]), 8.0 / 5.0, rtol=1e-6)
    total, count = kit.loss_sums(model)  # type: ignore[misc]
    np.testing.assert_allclose([float(total.numpy()), float(count.numpy())], [8.0, 5.0])


def test_clear_losses_forgets_what_layers_added() -> None:
    model = lamina.Sequential(
        [layers.Input((3,)), layers.Dense(2, activity_regularizer=lamina.regularizers.L2(0.1))]
    )
    model(np.ones((2, 3), "float32"))
    assert model.losses
    kit.clear_losses(model)
    assert model.losses == []


def test_attach_restore_sets_and_clears_the_hook() -> None:
    class Hook:
        def layer_tracked(self, parent, name, layer):
            pass

        def saved_value(self, layer, name, shape):
            return np.full(shape, 7.0, "float32") if name == "kernel" else None

        def optimizer_built(self, optimizer):
            pass

    dense = layers.Dense(2)
    hook = Hook()
    kit.attach_restore(dense, hook)
    assert kit.attached_restore(dense) is hook
    dense.build((None, 3))
    np.testing.assert_array_equal(dense.kernel.numpy(), np.full((3, 2), 7.0))
    kit.attach_restore(dense, None)
    assert kit.attached_restore(dense) is None


def test_the_kit_is_versioned_with_the_backend_api() -> None:
    assert kit.KIT_VERSION[0] == lamina.backend.BACKEND_API[0]
    assert isinstance(kit.ModuleBackend, type)
