"""Equalization and CLAHE: the layer contract on every backend. Equalization against
Pillow's `ImageOps.equalize` (exact on integer-valued images: the lookup table is integer
arithmetic); CLAHE against a loop-by-loop NumPy version of OpenCV's rule (within 1 level,
under 1% of pixels off by rounding)."""

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


def _clahe_reference(image: np.ndarray, clip: float, grid: tuple[int, int]) -> np.ndarray:
    """OpenCV's CLAHE on one (h, w) uint8-valued channel, in loops."""
    h, w = image.shape
    th, tw = -(-h // grid[0]), -(-w // grid[1])
    padded = np.pad(image, [(0, grid[0] * th - h), (0, grid[1] * tw - w)], mode="reflect")
    total = th * tw
    limit = max(int(clip * total / 256), 1)
    luts = np.zeros((grid[0], grid[1], 256))
    for i in range(grid[0]):
        for j in range(grid[1]):
            tile = padded[i * th : (i + 1) * th, j * tw : (j + 1) * tw].astype(int)
            hist = np.bincount(tile.ravel(), minlength=256).astype(float)
            excess = np.sum(np.maximum(hist - limit, 0))
            hist = np.minimum(hist, limit) + excess // 256
            residual = int(excess - (excess // 256) * 256)
            step = max(256 // max(residual, 1), 1)
            for k in range(0, 256, step):
                if residual <= 0:
                    break
                hist[k] += 1
                residual -= 1
            luts[i, j] = np.clip(np.floor(np.cumsum(hist) * 255.0 / total + 0.5), 0, 255)
    out = np.zeros((h, w))
    for y in range(h):
        fy = y / th - 0.5
        y1 = int(np.floor(fy))
        wy = fy - y1
        y1, y2 = max(y1, 0), min(y1 + 1, grid[0] - 1)
        for x in range(w):
            fx = x / tw - 0.5
            x1 = int(np.floor(fx))
            wx = fx - x1
            x1, x2 = max(x1, 0), min(x1 + 1, grid[1] - 1)
            v = int(image[y, x])
            top = luts[y1, x1, v] * (1 - wx) + luts[y1, x2, v] * wx
            bottom = luts[y2, x1, v] * (1 - wx) + luts[y2, x2, v] * wx
            out[y, x] = np.clip(np.floor(top * (1 - wy) + bottom * wy + 0.5), 0, 255)
    return out


CLAHE = layers.ContrastLimitedAdaptiveHistogramEqualization
SMOOTH = np.floor(RNG.beta(2, 5, size=(2, 20, 18, 3)) * 120).astype("float32")


def test_clahe_contract() -> None:
    check_layer(
        CLAHE, {"tile_grid_size": (2, 2)}, input_shape=(2, 8, 8, 3),
        expected_output_shape=(2, 8, 8, 3), expected_num_trainable_weights=0,
        input_data=RNG.integers(0, 255, (2, 8, 8, 3)).astype("float32"),
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_clahe_matches_opencv_rule(data_format: str) -> None:
    cf = data_format == "channels_first"
    layer = CLAHE(clip_limit=2.0, tile_grid_size=(3, 4), data_format=data_format)
    out = _np(layer(SMOOTH.transpose(0, 3, 1, 2) if cf else SMOOTH))
    out = out.transpose(0, 2, 3, 1) if cf else out
    expected = np.stack(
        [np.stack([_clahe_reference(im[..., c], 2.0, (3, 4)) for c in range(3)], -1)
         for im in SMOOTH]
    )  # fmt: skip
    # Float rounding may tip a blend sitting on .5 to the other integer.
    assert np.max(np.abs(out - expected)) <= 1 and np.mean(out != expected) < 0.01


def test_clahe_range_config_and_errors() -> None:
    scaled = _np(CLAHE(value_range=(0, 1), tile_grid_size=(2, 2))(SMOOTH / 255.0))
    plain = _np(CLAHE(tile_grid_size=(2, 2))(SMOOTH))
    np.testing.assert_allclose(scaled * 255.0, plain, atol=1.0 + 1e-3)
    config = CLAHE(clip_limit=3.0, tile_grid_size=(4, 2)).get_config()
    assert CLAHE.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`clip_limit`"):
        CLAHE(clip_limit=0)
    with pytest.raises(ValueError, match="`tile_grid_size`"):
        CLAHE(tile_grid_size=(0, 2))
