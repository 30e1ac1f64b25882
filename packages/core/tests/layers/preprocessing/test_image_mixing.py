"""MixUp: the layer contract on every backend; outputs are convex blends of two images of
the batch (least-squares weight, residual below 1e-3 on a 0-255 scale)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(3)
IMAGES = RNG.uniform(0, 255, size=(8, 4, 5, 3)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_layer_contract() -> None:
    check_layer(
        layers.MixUp, {"alpha": 0.4, "seed": 1}, input_shape=(2, 4, 5, 3),
        expected_output_shape=(2, 4, 5, 3), expected_num_trainable_weights=0,
    )  # fmt: skip


def test_outputs_are_blends_of_batch_pairs() -> None:
    out = _np(layers.MixUp(alpha=1.0, seed=4)(IMAGES))
    for o, x in zip(out, IMAGES):
        found = None
        for j, z in enumerate(IMAGES):
            d = (x - z).ravel()
            w = 1.0 if not d.any() else float(np.dot((o - z).ravel(), d) / np.dot(d, d))
            if -1e-4 <= w <= 1 + 1e-4 and np.abs(w * x + (1 - w) * z - o).max() < 1e-3:
                found = j
                break
        assert found is not None
    # With alpha=1 the weights are spread out: some images must really be mixed.
    assert any(not np.array_equal(o, x) for o, x in zip(out, IMAGES))
    np.testing.assert_array_equal(_np(layers.MixUp(seed=4)(IMAGES, training=False)), IMAGES)
    np.testing.assert_array_equal(out, _np(layers.MixUp(alpha=1.0, seed=4)(IMAGES)))
    config = layers.MixUp(alpha=0.3, seed=2).get_config()
    assert layers.MixUp.from_config(config).get_config() == config


def test_bad_alpha() -> None:
    with pytest.raises(ValueError, match="`alpha`"):
        layers.MixUp(alpha=0.0)
