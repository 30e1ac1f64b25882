"""RandomPerspective and RandomElasticTransform: the layer contract on every backend. The
perspective is the homography taking the drawn corners to their new places, checked
against a NumPy nearest-neighbour reference (at most 1% of pixels may differ, on rounding
near half-pixels); the elastic warp is its drawn field sampled by SciPy's
map_coordinates (1e-4 relative, 1e-2 absolute)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(10)
IMAGES = RNG.uniform(0, 255, size=(6, 10, 12, 2)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 3x3 matrix mapping the four `src` points onto `dst`."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src, dst):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    return np.append(np.linalg.solve(np.array(rows), np.array(rhs)), 1.0).reshape(3, 3)


def _warp(image: np.ndarray, start: np.ndarray, end: np.ndarray, fill: float) -> np.ndarray:
    h, w = image.shape[:2]
    to_input = _homography(end, start)
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    p = to_input @ np.stack([xs.ravel(), ys.ravel(), np.ones(h * w)])
    sx, sy = np.rint(p[0] / p[2]).astype(int), np.rint(p[1] / p[2]).astype(int)
    inside = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
    out = image[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)]
    return np.where(inside[:, None], out, fill).reshape(image.shape)


def test_contract() -> None:
    check_layer(
        layers.RandomPerspective, {"factor": 0.7, "scale": 0.4, "seed": 1},
        input_shape=(2, 8, 8, 3), expected_output_shape=(2, 8, 8, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_perspective_matches_numpy_homography(data_format: str) -> None:
    cf = data_format == "channels_first"
    kwargs = {"scale": 0.4, "interpolation": "nearest", "fill_value": -1.0, "seed": 2}
    probe = layers.RandomPerspective(**kwargs)
    start, end = (_np(p) for p in probe.corners(6, ops.convert_to_tensor(10.0),
                                                   ops.convert_to_tensor(12.0)))  # fmt: skip
    layer = layers.RandomPerspective(**kwargs, data_format=data_format)
    out = _np(layer(IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES))
    out = out.transpose(0, 2, 3, 1) if cf else out
    assert np.all(np.abs(end - start) <= 0.2 * np.array([12, 10]) + 1e-4)
    for i in range(6):
        expected = _warp(IMAGES[i], start[i], end[i], -1.0)
        assert np.mean(out[i] != expected) <= 0.01


def test_probability_identity_seed_and_config() -> None:
    np.testing.assert_allclose(_np(layers.RandomPerspective(0.0, seed=1)(IMAGES)), IMAGES,
                               atol=1e-3)  # fmt: skip
    np.testing.assert_allclose(_np(layers.RandomPerspective(scale=0.0)(IMAGES)), IMAGES,
                               atol=1e-3)  # fmt: skip
    kwargs = {"factor": 0.5, "scale": 0.5, "seed": 3}
    first = _np(layers.RandomPerspective(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(layers.RandomPerspective(**kwargs)(IMAGES)))
    np.testing.assert_array_equal(
        _np(layers.RandomPerspective(**kwargs)(IMAGES, training=False)), IMAGES
    )
    assert _np(layers.RandomPerspective(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = layers.RandomPerspective(**kwargs).get_config()
    assert layers.RandomPerspective.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`scale`"):
        layers.RandomPerspective(scale=1.5)
    with pytest.raises(ValueError, match="`interpolation`"):
        layers.RandomPerspective(interpolation="cubic")


def test_elastic_contract() -> None:
    check_layer(
        layers.RandomElasticTransform, {"factor": 0.8, "scale": 0.5, "seed": 1},
        input_shape=(2, 8, 8, 3), expected_output_shape=(2, 8, 8, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_elastic_matches_scipy_sampling(data_format: str) -> None:
    ndimage = pytest.importorskip("scipy.ndimage")
    cf = data_format == "channels_first"
    kwargs = {"scale": (0.6, 0.9), "fill_mode": "constant", "fill_value": 7.0, "seed": 5}
    move = _np(layers.RandomElasticTransform(**kwargs).field(6, 10, 12))
    peak = np.abs(move).reshape(6, -1).max(axis=1)
    assert np.all((peak >= 0.6 * 10 / 8 - 1e-3) & (peak <= 0.9 * 10 / 8 + 1e-3))
    layer = layers.RandomElasticTransform(**kwargs, data_format=data_format)
    out = _np(layer(IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES))
    out = out.transpose(0, 2, 3, 1) if cf else out
    ys, xs = np.meshgrid(np.arange(10), np.arange(12), indexing="ij")
    for i in range(6):
        coords = [ys + move[i, ..., 0], xs + move[i, ..., 1]]
        for c in range(2):
            expected = ndimage.map_coordinates(
                IMAGES[i, ..., c].astype("float64"), coords, order=1, mode="grid-constant", cval=7.0
            )
            np.testing.assert_allclose(out[i, ..., c], np.clip(expected, 0, 255), rtol=1e-4,
                                       atol=1e-2)  # fmt: skip


def test_elastic_probability_seed_and_config() -> None:
    np.testing.assert_allclose(_np(layers.RandomElasticTransform(scale=0.0)(IMAGES)), IMAGES,
                               atol=1e-3)  # fmt: skip
    half = _np(layers.RandomElasticTransform(0.5, seed=6)(np.tile(IMAGES, (6, 1, 1, 1))))
    changed = np.abs(half - np.tile(IMAGES, (6, 1, 1, 1))).reshape(36, -1).max(axis=1) > 1e-3
    assert 8 <= changed.sum() <= 28
    kwargs = {"factor": 0.7, "scale": 0.5, "seed": 3}
    first = _np(layers.RandomElasticTransform(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(layers.RandomElasticTransform(**kwargs)(IMAGES)))
    np.testing.assert_array_equal(
        _np(layers.RandomElasticTransform(**kwargs)(IMAGES, training=False)), IMAGES
    )
    assert _np(layers.RandomElasticTransform(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = layers.RandomElasticTransform(**kwargs).get_config()
    assert layers.RandomElasticTransform.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`fill_mode`"):
        layers.RandomElasticTransform(fill_mode="edge")
    with pytest.raises(ValueError, match="`scale`"):
        layers.RandomElasticTransform(scale=2.0)
