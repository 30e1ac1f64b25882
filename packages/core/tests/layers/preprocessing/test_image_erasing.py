"""RandomErasing: the layer contract on every backend; each erased region is one
axis-aligned box of the drawn size holding `fill_value` (exact), erasing fractions and
noise fills checked statistically."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(6)
IMAGES = RNG.uniform(1, 255, size=(40, 16, 12, 2)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _box_of(changed: np.ndarray) -> tuple[int, int] | None:
    """The (height, width) of the box `changed` is, or None when it is not one box."""
    rows = np.flatnonzero(changed.any(axis=1))
    cols = np.flatnonzero(changed.any(axis=0))
    if len(rows) == 0:
        return (0, 0)
    box = np.zeros_like(changed)
    box[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1] = True
    return (len(rows), len(cols)) if np.array_equal(box, changed) else None


def test_contract() -> None:
    check_layer(
        layers.RandomErasing, {"factor": 0.8, "scale": (0.2, 0.5), "seed": 1},
        input_shape=(2, 8, 8, 3), expected_output_shape=(2, 8, 8, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_erases_one_box_of_the_drawn_size(data_format: str) -> None:
    cf = data_format == "channels_first"
    layer = layers.RandomErasing(1.0, scale=(0.25, 0.5), fill_value=-1.0, seed=2,
                                 data_format=data_format)  # fmt: skip
    out = _np(layer(IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES))
    out = out.transpose(0, 2, 3, 1) if cf else out
    changed = out != IMAGES
    assert np.all(changed.all(axis=-1) == changed.any(axis=-1))
    assert np.all(out[changed] == -1.0)
    for c in changed[..., 0]:
        box = _box_of(c)
        assert box is not None
        assert 4 <= box[0] <= 8 and 3 <= box[1] <= 6


def test_probability_noise_inference_and_seed() -> None:
    half = _np(layers.RandomErasing(0.5, scale=(0.3, 0.5), fill_value=0.0, seed=3)(IMAGES))
    erased = (half != IMAGES).reshape(len(IMAGES), -1).any(axis=1)
    assert 8 <= erased.sum() <= 32
    assert not (_np(layers.RandomErasing(0.0)(IMAGES)) != IMAGES).any()
    noisy = _np(layers.RandomErasing(1.0, scale=(0.5, 0.5), value_range=(0, 1), seed=4)(IMAGES))
    filled = noisy[noisy != IMAGES]
    assert filled.size > 0 and filled.min() >= 0.0 and filled.max() <= 1.0
    kwargs = {"scale": (0.1, 0.6), "seed": 5}
    np.testing.assert_array_equal(_np(layers.RandomErasing(**kwargs)(IMAGES)),
                                  _np(layers.RandomErasing(**kwargs)(IMAGES)))  # fmt: skip
    np.testing.assert_array_equal(
        _np(layers.RandomErasing(**kwargs)(IMAGES, training=False)), IMAGES
    )
    assert _np(layers.RandomErasing(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = layers.RandomErasing(**kwargs).get_config()
    assert layers.RandomErasing.from_config(config).get_config() == config


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="`scale`"):
        layers.RandomErasing(scale=(0.1, 1.5))
    with pytest.raises(ValueError, match="`fill_value`"):
        layers.RandomErasing(fill_value="black")
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandomErasing(factor=2.0)
