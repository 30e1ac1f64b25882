"""RandomColorJitter and RandomColorDegeneration: the layer contract on every backend;
the jitter is its four steps in turn (same seed: same draws), and the degeneration a blend
with the NumPy grayscale (1e-4 relative, 1e-2 absolute on a 0-255 scale)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(7)
IMAGES = RNG.uniform(0, 255, size=(6, 5, 7, 3)).astype("float32")
JITTER = {"brightness_factor": 0.2, "contrast_factor": (0.2, 0.4),
          "saturation_factor": (0.3, 0.7), "hue_factor": 0.1, "seed": 3}  # fmt: skip


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _gray(x: np.ndarray) -> np.ndarray:
    return (x @ np.array([0.2989, 0.587, 0.114], "float32"))[..., None]


@pytest.mark.parametrize(
    "cls,kwargs",
    # The contract's jitter leaves out the HSV steps (their layers run the contract in
    # test_image_hsv.py; torch.compile of all four at once is slow): the full chain is
    # checked eagerly below.
    [(layers.RandomColorJitter, {"brightness_factor": 0.2, "contrast_factor": 0.3, "seed": 3}),
     (layers.RandomColorDegeneration, {"factor": 0.6, "seed": 1})],
)  # fmt: skip
def test_contract(cls: type, kwargs: dict) -> None:
    check_layer(
        cls, kwargs, input_shape=(2, 5, 7, 3), expected_output_shape=(2, 5, 7, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


def test_jitter_is_its_steps_in_turn() -> None:
    out = _np(layers.RandomColorJitter(**JITTER)(IMAGES))
    x = layers.RandomBrightness(0.2, seed=3)(IMAGES)
    x = layers.RandomContrast((0.2, 0.4), seed=3)(x)
    x = layers.RandomSaturation((0.3, 0.7), seed=3)(x)
    x = layers.RandomHue(0.1, seed=3)(x)
    np.testing.assert_allclose(out, _np(x), rtol=1e-5, atol=1e-3)
    fixed = layers.RandomColorJitter((0, 1), brightness_factor=(0.1, 0.1))(IMAGES / 255)
    np.testing.assert_allclose(_np(fixed), np.clip(IMAGES / 255 + 0.1, 0, 1), atol=1e-5)
    np.testing.assert_array_equal(_np(layers.RandomColorJitter()(IMAGES)), IMAGES)
    np.testing.assert_array_equal(
        _np(layers.RandomColorJitter(**JITTER)(IMAGES, training=False)), IMAGES
    )
    config = layers.RandomColorJitter(**JITTER).get_config()
    assert layers.RandomColorJitter.from_config(config).get_config() == config


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_degeneration_blends_with_gray(data_format: str) -> None:
    cf = data_format == "channels_first"
    x = IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES
    for f in (0.0, 0.5, 1.0):
        layer = layers.RandomColorDegeneration((f, f), data_format=data_format)
        out = _np(layer(x))
        out = out.transpose(0, 2, 3, 1) if cf else out
        np.testing.assert_allclose(out, IMAGES + f * (_gray(IMAGES) - IMAGES), rtol=1e-4,
                                   atol=1e-2)  # fmt: skip
    drawn = _np(layers.RandomColorDegeneration(0.8, seed=2)(IMAGES))
    f = ((drawn - IMAGES) / (_gray(IMAGES) - IMAGES)).reshape(6, -1)
    np.testing.assert_allclose(f, f[:, :1] * np.ones_like(f), atol=1e-3)
    assert np.all((f >= -1e-4) & (f <= 0.8 + 1e-4))
    kwargs = {"factor": 0.8, "seed": 2}
    np.testing.assert_array_equal(drawn, _np(layers.RandomColorDegeneration(**kwargs)(IMAGES)))
    assert _np(layers.RandomColorDegeneration(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = layers.RandomColorDegeneration(**kwargs).get_config()
    assert layers.RandomColorDegeneration.from_config(config).get_config() == config


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandomColorDegeneration(1.5)
    with pytest.raises(ValueError, match="`value_range`"):
        layers.RandomColorJitter(value_range=(1, 0))
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandomColorJitter(brightness_factor=3.0)
