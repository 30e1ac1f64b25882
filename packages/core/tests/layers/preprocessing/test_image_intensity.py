"""Pixel-value layers (grayscale, invert, solarization, posterization, auto-contrast): the
layer contract on every backend and NumPy references (1e-4 relative, or exact for selections
between whole images)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(1)
IMAGES = RNG.uniform(0, 255, size=(64, 6, 5, 3)).astype("float32")

CASES = [
    (layers.RandomGrayscale, {"factor": 0.5, "seed": 1}),
    (layers.RandomInvert, {"factor": 0.5, "seed": 1}),
    (layers.Solarization, {"addition_factor": 0.2, "threshold_factor": 0.5, "seed": 1}),
    (layers.RandomPosterization, {"factor": (2, 6), "seed": 1}),
]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _gray(x: np.ndarray) -> np.ndarray:
    return x @ np.array([0.2989, 0.587, 0.114], "float32")


@pytest.mark.parametrize("cls,kwargs", [*CASES, (layers.AutoContrast, {})])
def test_layer_contract(cls: type, kwargs: dict) -> None:
    check_layer(
        cls, kwargs, input_shape=(2, 6, 5, 3), expected_output_shape=(2, 6, 5, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("cls,kwargs", CASES)
def test_identity_at_inference_seeded_and_single_images(cls: type, kwargs: dict) -> None:
    np.testing.assert_array_equal(_np(cls(**kwargs)(IMAGES, training=False)), IMAGES)
    first = _np(cls(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(cls(**kwargs)(IMAGES)))
    assert _np(cls(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = cls(**kwargs).get_config()
    assert cls.from_config(config).get_config() == config


def test_grayscale_picks_gray_or_original() -> None:
    out = _np(layers.RandomGrayscale(0.5, seed=3)(IMAGES))
    gray = np.repeat(_gray(IMAGES)[..., None], 3, axis=-1)
    is_gray = [np.allclose(o, g, rtol=1e-4, atol=1e-2) for o, g in zip(out, gray)]
    is_same = [np.array_equal(o, x) for o, x in zip(out, IMAGES)]
    assert all(a or b for a, b in zip(is_gray, is_same))
    assert 12 <= sum(is_gray) <= 52
    cf = layers.RandomGrayscale(1.0, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2))
    np.testing.assert_allclose(_np(cf), gray.transpose(0, 3, 1, 2), rtol=1e-4, atol=1e-2)


def test_invert_always_and_never() -> None:
    np.testing.assert_allclose(_np(layers.RandomInvert(1.0)(IMAGES)), 255 - IMAGES, rtol=1e-6)
    np.testing.assert_array_equal(_np(layers.RandomInvert(0.0)(IMAGES)), IMAGES)
    half = _np(layers.RandomInvert(1.0, value_range=(0, 1))(IMAGES / 255))
    np.testing.assert_allclose(half, 1 - IMAGES / 255, rtol=1e-5, atol=1e-6)


def test_solarization_fixed_threshold() -> None:
    out = _np(layers.Solarization(threshold_factor=(0.5, 0.5), seed=0)(IMAGES))
    expected = np.where(IMAGES < 127.5, IMAGES, 255 - IMAGES)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-3)
    scaled = _np(layers.Solarization(threshold_factor=(0.5, 0.5), value_range=(0, 1))(IMAGES / 255))
    np.testing.assert_allclose(scaled, expected / 255, rtol=1e-4, atol=1e-5)


def test_posterization_keeps_top_bits() -> None:
    out = _np(layers.RandomPosterization((3, 3), seed=0)(IMAGES))
    expected = (np.floor(IMAGES).astype("uint8") >> 5 << 5).astype("float32")
    np.testing.assert_array_equal(out, expected)
    mixed = _np(layers.RandomPosterization((1, 8), seed=0)(IMAGES))
    options = [(np.floor(IMAGES).astype("uint8") >> s << s) for s in range(8)]
    assert all(any(np.array_equal(m, o[i]) for o in options) for i, m in enumerate(mixed))


def test_auto_contrast_stretches_each_channel() -> None:
    images = RNG.uniform(50, 100, size=(3, 4, 4, 3)).astype("float32")
    images[0, ..., 1] = 70.0
    out = _np(layers.AutoContrast()(images))
    low = images.min(axis=(1, 2), keepdims=True)
    high = images.max(axis=(1, 2), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(high > low, (images - low) / (high - low) * 255, images)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(_np(layers.AutoContrast()(images, training=False)), out)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandomGrayscale(1.5)
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandomPosterization(9)
    with pytest.raises(ValueError, match="`threshold_factor`"):
        layers.Solarization(threshold_factor=2.0)
    with pytest.raises(ValueError, match="`value_range`"):
        layers.AutoContrast(value_range=(3, 3))
