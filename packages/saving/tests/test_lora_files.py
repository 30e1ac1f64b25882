"""Layers with LoRA factors save the merged weight and load back from every file kind.

The file holds what `save_own_variables` writes (the kernel with the LoRA update merged in,
and the bias), not the factors; restoring compared the file against every variable the
layer owns and refused such models outright.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def _model():
    model = lamina.Sequential(
        [
            lamina.Input((4,)),
            layers.Embedding(10, 4, lora_rank=2, name="embed"),
            layers.Dense(6, lora_rank=2, name="dense"),
            layers.EinsumDense("abc,cd->abd", output_shape=(None, 3), lora_rank=2, name="ein"),
        ]
    )
    for layer in model.layers:  # non-zero factors: the merged weight differs from the kernel
        for variable in layer.trainable_weights:
            variable.assign(np.full(variable.shape, 0.1, dtype="float32"))
    return model


X = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype="int32")


@pytest.mark.parametrize("suffix", [".lamina", ".keras"])
def test_archives_of_lora_models_load(tmp_path, suffix):
    model = _model()
    path = tmp_path / f"lora{suffix}"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_allclose(
        ops.convert_to_numpy(loaded(X)), ops.convert_to_numpy(model(X)), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("built", [True, False])
def test_weights_files_of_lora_models_load_now_and_deferred(tmp_path, built):
    model = _model()
    path = tmp_path / "lora.weights.h5"
    model.save_weights(path)
    fresh = _model() if built else lamina.Sequential(
        [
            layers.Embedding(10, 4, lora_rank=2, name="embed"),
            layers.Dense(6, lora_rank=2, name="dense"),
            layers.EinsumDense("abc,cd->abd", output_shape=(None, 3), lora_rank=2, name="ein"),
        ]
    )
    fresh.load_weights(path)
    np.testing.assert_allclose(
        ops.convert_to_numpy(fresh(X)), ops.convert_to_numpy(model(X)), rtol=1e-5, atol=1e-6
    )
