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


def test_cutmix_contract() -> None:
    check_layer(
        layers.CutMix, {"factor": 0.8, "seed": 1}, input_shape=(2, 4, 5, 3),
        expected_output_shape=(2, 4, 5, 3), expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_cutmix_pastes_one_rectangle_from_one_partner(data_format: str) -> None:
    cf = data_format == "channels_first"
    x = IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES
    out = _np(layers.CutMix(seed=5, data_format=data_format)(x))
    out = out.transpose(0, 2, 3, 1) if cf else out
    changed_any = False
    for o, own in zip(out, IMAGES):
        changed = (o != own).any(axis=-1)
        if not changed.any():
            continue
        changed_any = True
        rows, cols = np.nonzero(changed.any(axis=1))[0], np.nonzero(changed.any(axis=0))[0]
        box = (slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1))
        assert any(np.array_equal(o[box], z[box]) for z in IMAGES)
        outside = np.ones_like(changed)
        outside[box] = False
        np.testing.assert_array_equal(o[outside], own[outside])
    assert changed_any
    np.testing.assert_array_equal(_np(layers.CutMix(seed=5)(IMAGES, training=False)), IMAGES)
    config = layers.CutMix(0.5, seed=2).get_config()
    assert layers.CutMix.from_config(config).get_config() == config
