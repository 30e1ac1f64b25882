"""Equalization: the layer contract on every backend and Pillow's `ImageOps.equalize` as
the reference (exact on integer-valued images: the lookup table is integer arithmetic)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

PIL = pytest.importorskip("PIL.ImageOps")
from PIL import Image  # noqa: E402

RNG = np.random.default_rng(9)
IMAGES = np.floor(RNG.beta(2, 5, size=(3, 12, 10, 3)) * 200).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _pillow(images: np.ndarray) -> np.ndarray:
    out = [np.asarray(PIL.equalize(Image.fromarray(x.astype("uint8")))) for x in images]
    return np.stack(out).astype("float32")


def test_contract() -> None:
    check_layer(
        layers.Equalization, {}, input_shape=(2, 6, 5, 3), expected_output_shape=(2, 6, 5, 3),
        expected_num_trainable_weights=0,
        input_data=RNG.integers(0, 255, (2, 6, 5, 3)).astype("float32"),
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_matches_pillow(data_format: str) -> None:
    images = IMAGES.copy()
    images[1, ..., 2] = 40.0  # a flat channel is left as it is
    cf = data_format == "channels_first"
    layer = layers.Equalization(data_format=data_format)
    x = images.transpose(0, 3, 1, 2) if cf else images
    out = _np(layer(x))
    np.testing.assert_array_equal(out.transpose(0, 2, 3, 1) if cf else out, _pillow(images))
    np.testing.assert_array_equal(_np(layer(x[0])), out[0])


def test_value_range_bins_and_config() -> None:
    scaled = _np(layers.Equalization(value_range=(0, 1))(IMAGES / 255.0))
    np.testing.assert_allclose(scaled, _pillow(IMAGES) / 255.0, atol=1e-5)
    coarse = _np(layers.Equalization(bins=16)(IMAGES))
    assert len(np.unique(coarse)) <= 16 * 3 and coarse.min() >= 0 and coarse.max() <= 255
    np.testing.assert_array_equal(_np(layers.Equalization()(IMAGES, training=False)),
                                  _pillow(IMAGES))  # fmt: skip
    config = layers.Equalization(bins=64).get_config()
    assert layers.Equalization.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`bins`"):
        layers.Equalization(bins=1)
