"""RandAugment and AugMix: the layer contract on every backend. At strength 0 every pool
layer but auto-contrast and equalization is the identity on integer-valued images, so
each output is checked against those three NumPy/Pillow references (1e-3 absolute on a
0-255 scale); seeds, ranges and both data formats are checked statistically."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

PIL = pytest.importorskip("PIL.ImageOps")
from PIL import Image  # noqa: E402

RNG = np.random.default_rng(12)
IMAGES = np.floor(RNG.uniform(20, 230, size=(24, 6, 6, 3))).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _candidates(x: np.ndarray) -> list[np.ndarray]:
    low = x.min(axis=(0, 1), keepdims=True)
    high = x.max(axis=(0, 1), keepdims=True)
    stretched = (x - low) / (high - low) * 255.0
    equalized = np.asarray(PIL.equalize(Image.fromarray(x.astype("uint8")))).astype("float32")
    return [x, stretched, equalized]


@pytest.mark.parametrize(
    "cls,kwargs",
    [(layers.RandAugment, {"num_ops": 1, "factor": 0.5, "seed": 1}),
     (layers.AugMix, {"num_chains": 2, "chain_depth": 1, "all_operations": False, "seed": 1})],
)  # fmt: skip
def test_contract(cls: type, kwargs: dict) -> None:
    check_layer(
        cls, kwargs, input_shape=(2, 6, 6, 3), expected_output_shape=(2, 6, 6, 3),
        expected_num_trainable_weights=0,
    )  # fmt: skip


def test_randaugment_picks_one_layer_per_image() -> None:
    # 72 images: each of the 13 layers is picked with probability 1 - (12/13)^72 > 0.996;
    # 16x16 images, so equalization (a no-op below 256 pixels) changes them.
    images = np.floor(RNG.uniform(20, 120, size=(72, 16, 16, 3))).astype("float32")
    out = _np(layers.RandAugment(num_ops=1, factor=0.0, seed=2)(images))
    picked = set()
    for o, x in zip(out, images):
        matches = [i for i, c in enumerate(_candidates(x)) if np.allclose(o, c, atol=1e-3)]
        assert matches, "output is none of the strength-0 candidates"
        picked.add(matches[0])
    assert picked == {0, 1, 2}
    np.testing.assert_array_equal(_np(layers.RandAugment(num_ops=0)(IMAGES)), IMAGES)


def test_augmix_is_a_blend_with_the_image() -> None:
    layer = layers.AugMix(num_chains=1, chain_depth=1, factor=0.0, all_operations=False,
                          seed=3)  # fmt: skip
    out = _np(layer(IMAGES))
    for o, x in zip(out, IMAGES):
        fits = []
        for c in _candidates(x):
            d = (c - x).ravel()
            k = 0.0 if not d.any() else float(np.dot((o - x).ravel(), d) / np.dot(d, d))
            fits.append(np.max(np.abs(x + k * (c - x) - o)) <= 1e-2 and -1e-4 <= k <= 1 + 1e-4)
        assert any(fits)


@pytest.mark.parametrize("cls", [layers.RandAugment, layers.AugMix])
def test_seed_range_formats_and_config(cls: type) -> None:
    kwargs = {"factor": 0.7, "seed": 4}
    first = _np(cls(**kwargs)(IMAGES))
    np.testing.assert_array_equal(first, _np(cls(**kwargs)(IMAGES)))
    assert first.min() >= -1e-3 and first.max() <= 255 + 1e-3
    assert not np.allclose(first, IMAGES)
    cf = _np(cls(**kwargs, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2)))
    np.testing.assert_allclose(cf.transpose(0, 2, 3, 1), first, rtol=1e-4, atol=1e-2)
    np.testing.assert_array_equal(_np(cls(**kwargs)(IMAGES, training=False)), IMAGES)
    assert _np(cls(**kwargs)(IMAGES[0])).shape == IMAGES.shape[1:]
    config = cls(**kwargs).get_config()
    assert cls.from_config(config).get_config() == config


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="`num_ops`"):
        layers.RandAugment(num_ops=-1)
    with pytest.raises(ValueError, match="`factor`"):
        layers.RandAugment(factor=2.0)
    with pytest.raises(ValueError, match="`chain_depth`"):
        layers.AugMix(chain_depth=0)
    with pytest.raises(ValueError, match="`alpha`"):
        layers.AugMix(alpha=0.0)
