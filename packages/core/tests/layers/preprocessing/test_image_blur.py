"""RandomGaussianBlur: the layer contract on every backend and a separable zero-padded
gaussian reference in NumPy (1e-4 relative, 1e-2 absolute on a 0-255 scale)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(4)
IMAGES = RNG.uniform(0, 255, size=(3, 6, 7, 3)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _taps(k: int, s: float) -> np.ndarray:
    r = (k - 1) // 2
    t = np.exp(-(np.arange(-r, r + 1) ** 2) / (2 * s * s))
    return t / t.sum()


def _correlate(x: np.ndarray, taps: np.ndarray, axis: int) -> np.ndarray:
    r = (len(taps) - 1) // 2
    pads = [(0, 0)] * 4
    pads[axis] = (r, r)
    padded = np.pad(x.astype("float64"), pads)
    n = x.shape[axis]
    return sum(t * np.take(padded, np.arange(i, i + n), axis=axis) for i, t in enumerate(taps))


def test_contract() -> None:
    check_layer(
        layers.RandomGaussianBlur, {"factor": 0.7, "sigma": (0.5, 1.5), "seed": 1},
        input_shape=(2, 6, 7, 3), expected_output_shape=(2, 6, 7, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_fixed_sigma_matches_numpy(data_format: str) -> None:
    cf = data_format == "channels_first"
    x = IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES
    layer = layers.RandomGaussianBlur(1.0, kernel_size=(3, 5), sigma=(1.2, 1.2), seed=0,
                                      data_format=data_format)  # fmt: skip
    out = _np(layer(x))
    out = out.transpose(0, 2, 3, 1) if cf else out
    expected = _correlate(_correlate(IMAGES, _taps(3, 1.2), 2), _taps(5, 1.2), 1)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-2)


def test_never_inference_seed_and_config() -> None:
    np.testing.assert_array_equal(_np(layers.RandomGaussianBlur(0.0)(IMAGES)), IMAGES)
    np.testing.assert_array_equal(
        _np(layers.RandomGaussianBlur(1.0)(IMAGES, training=False)), IMAGES
    )
    kwargs = {"factor": 0.5, "sigma": (0.2, 2.0), "seed": 3}
    first = _np(layers.RandomGaussianBlur(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(layers.RandomGaussianBlur(**kwargs)(IMAGES)))
    assert _np(layers.RandomGaussianBlur(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = layers.RandomGaussianBlur(**kwargs).get_config()
    assert layers.RandomGaussianBlur.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`kernel_size`"):
        layers.RandomGaussianBlur(kernel_size=4)
