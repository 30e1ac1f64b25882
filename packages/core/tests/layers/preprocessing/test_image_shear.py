"""RandomShear: the layer contract on every backend, and a nearest-neighbour NumPy
reference of the centred shear (exact: no sample falls on a rounding tie), both signs."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(5)
IMAGES = RNG.uniform(0, 255, size=(16, 8, 8, 2)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _shear_reference(x: np.ndarray, sx: float, sy: float) -> np.ndarray:
    """Nearest sampling of ``(x + sx (y - cy), y + sy (x - cx))`` with zero fill."""
    h, w = x.shape[1:3]
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    src_x = np.rint(xs + sx * (ys - (h - 1) / 2)).astype(int)
    src_y = np.rint(ys + sy * (xs - (w - 1) / 2)).astype(int)
    inside = (src_x >= 0) & (src_x < w) & (src_y >= 0) & (src_y < h)
    out = x[:, np.clip(src_y, 0, h - 1), np.clip(src_x, 0, w - 1)]
    return np.where(inside[None, :, :, None], out, 0.0)


def test_contract() -> None:
    check_layer(
        layers.RandomShear, {"x_factor": 0.3, "y_factor": (0.1, 0.2), "seed": 1},
        input_shape=(2, 8, 8, 3), expected_output_shape=(2, 8, 8, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_fixed_shear_matches_numpy(data_format: str) -> None:
    cf = data_format == "channels_first"
    layer = layers.RandomShear(x_factor=(0.5, 0.5), interpolation="nearest",
                               fill_mode="constant", seed=2, data_format=data_format)  # fmt: skip
    out = _np(layer(IMAGES.transpose(0, 3, 1, 2) if cf else IMAGES))
    out = out.transpose(0, 2, 3, 1) if cf else out
    plus, minus = _shear_reference(IMAGES, 0.5, 0.0), _shear_reference(IMAGES, -0.5, 0.0)
    signs = [np.array_equal(o, p) - np.array_equal(o, m) for o, p, m in zip(out, plus, minus)]
    assert all(s != 0 for s in signs) and len(set(signs)) == 2
    vertical = layers.RandomShear(y_factor=(0.25, 0.25), interpolation="nearest",
                                  fill_mode="constant", seed=3)(IMAGES)  # fmt: skip
    options = [_shear_reference(IMAGES, 0.0, s) for s in (0.25, -0.25)]
    assert all(any(np.array_equal(o, c[i]) for c in options)
               for i, o in enumerate(_np(vertical)))  # fmt: skip


def test_inference_seed_and_config() -> None:
    kwargs = {"x_factor": 0.2, "y_factor": 0.2, "seed": 4}
    np.testing.assert_array_equal(_np(layers.RandomShear(**kwargs)(IMAGES, training=False)),
                                  IMAGES)  # fmt: skip
    first = _np(layers.RandomShear(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(layers.RandomShear(**kwargs)(IMAGES)))
    assert _np(layers.RandomShear(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    assert np.array_equal(_np(layers.RandomShear()(IMAGES)), IMAGES)
    config = layers.RandomShear(**kwargs).get_config()
    assert layers.RandomShear.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`x_factor`"):
        layers.RandomShear(x_factor=1.5)
    with pytest.raises(ValueError, match="`y_factor`"):
        layers.RandomShear(y_factor=(-0.1, 0.2))
