"""Pipeline: the layer contract on every backend; it equals its layers applied in turn
(exact, same seeds), passes `training` on, and its config holds its layers."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(8)
IMAGES = RNG.uniform(0, 255, size=(4, 8, 8, 3)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _steps() -> list:
    return [layers.RandomFlip(seed=1), layers.RandomContrast(0.3, seed=2),
            layers.CenterCrop(6, 6)]  # fmt: skip


def test_contract() -> None:
    # No mixed-precision check: as in Keras 3, the output dtype is the last layer's, not
    # the pipeline's own policy.
    check_layer(
        layers.Pipeline, {"layers": _steps()}, input_shape=(2, 8, 8, 3),
        expected_output_shape=(2, 6, 6, 3), expected_num_trainable_weights=0,
        run_mixed_precision_check=False,
    )  # fmt: skip


def test_layers_in_turn_and_training_flag() -> None:
    out = _np(layers.Pipeline(_steps())(IMAGES))
    x = IMAGES
    for step in _steps():
        x = step(x)
    np.testing.assert_array_equal(out, _np(x))
    inference = _np(layers.Pipeline(_steps())(IMAGES, training=False))
    np.testing.assert_array_equal(inference, IMAGES[:, 1:7, 1:7])
    pipeline = layers.Pipeline(_steps(), name="augment")
    assert [type(x).__name__ for x in pipeline.layers] == ["RandomFlip", "RandomContrast",
                                                           "CenterCrop"]  # fmt: skip
    config = pipeline.get_config()
    clone = layers.Pipeline.from_config(config)
    assert clone.get_config() == config and clone.name == "augment"
    with pytest.raises(ValueError, match="`layers`"):
        layers.Pipeline("RandomFlip")
