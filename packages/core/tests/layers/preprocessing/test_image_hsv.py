"""RandomSaturation, RandomHue and RandomSharpness: the layer contract on every backend and
NumPy / colorsys references (1e-4 relative, 1e-2 absolute on a 0-255 scale)."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(2)
IMAGES = RNG.uniform(0, 255, size=(3, 5, 6, 3)).astype("float32")
TOL = {"rtol": 1e-4, "atol": 2e-2}

CASES = [
    (layers.RandomSaturation, {"factor": (0.2, 0.8), "seed": 1}),
    (layers.RandomHue, {"factor": 0.4, "seed": 1}),
    (layers.RandomSharpness, {"factor": 0.7, "seed": 1}),
]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


@pytest.mark.parametrize("cls,kwargs", CASES)
def test_layer_contract(cls: type, kwargs: dict) -> None:
    check_layer(
        cls, kwargs, input_shape=(2, 5, 6, 3), expected_output_shape=(2, 5, 6, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("cls,kwargs", CASES)
def test_identity_at_inference_seeded_and_configs(cls: type, kwargs: dict) -> None:
    np.testing.assert_array_equal(_np(cls(**kwargs)(IMAGES, training=False)), IMAGES)
    np.testing.assert_array_equal(_np(cls(**kwargs)(IMAGES)), _np(cls(**kwargs)(IMAGES)))
    assert _np(cls(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = cls(**kwargs).get_config()
    assert cls.from_config(config).get_config() == config


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_saturation_neutral_and_gray(data_format: str) -> None:
    cf = data_format == "channels_first"
    x = IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES
    same = _np(layers.RandomSaturation((0.5, 0.5), data_format=data_format)(x))
    np.testing.assert_allclose(same, x, **TOL)
    gray = _np(layers.RandomSaturation((0.0, 0.0), data_format=data_format)(x))
    expected = np.repeat(IMAGES.max(axis=-1, keepdims=True), 3, axis=-1)
    np.testing.assert_allclose(gray, expected.transpose(0, 3, 1, 2) if cf else expected, **TOL)


def test_hue_half_turn_matches_colorsys() -> None:
    out = _np(layers.RandomHue((1.0, 1.0), seed=0)(IMAGES))
    flat = IMAGES.reshape(-1, 3) / 255
    expected = []
    for r, g, b in flat:
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        expected.append(colorsys.hsv_to_rgb((h + 0.5) % 1.0, s, v))
    np.testing.assert_allclose(out, np.array(expected).reshape(IMAGES.shape) * 255, **TOL)
    np.testing.assert_allclose(_np(layers.RandomHue((0.0, 0.0))(IMAGES)), IMAGES, **TOL)


def test_sharpness_zero_is_the_smoothed_image() -> None:
    padded = np.pad(IMAGES, ((0, 0), (1, 1), (1, 1), (0, 0)))
    smooth = (
        sum(
            padded[:, i : i + 5, j : j + 6] * (5 if (i, j) == (1, 1) else 1)
            for i in range(3)
            for j in range(3)
        )
        / 13.0
    )
    out = _np(layers.RandomSharpness((0.0, 0.0))(IMAGES))
    np.testing.assert_allclose(out, smooth, **TOL)
    np.testing.assert_allclose(_np(layers.RandomSharpness((0.5, 0.5))(IMAGES)), IMAGES, **TOL)
    sharp = _np(layers.RandomSharpness((1.0, 1.0))(IMAGES))
    np.testing.assert_allclose(sharp, np.clip(2 * IMAGES - smooth, 0, 255), **TOL)


def test_bad_factor() -> None:
    for cls in (layers.RandomSaturation, layers.RandomHue, layers.RandomSharpness):
        with pytest.raises(ValueError, match="`factor`"):
            cls(1.5)
