"""Image preprocessing layers: the layer contract on every backend, and numerics against
NumPy references (exact for flips, crops and 90-degree turns; 1e-4 relative for resizing
and the intensity formulas)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, size=(4, 8, 8, 3)).astype("float32")

RANDOM_CASES = [
    (layers.RandomCrop, {"height": 5, "width": 6, "seed": 1}, (2, 5, 6, 3)),
    (layers.RandomFlip, {"seed": 1}, None),
    (layers.RandomFlip, {"mode": "horizontal", "seed": 1}, None),
    (layers.RandomRotation, {"factor": 0.2, "seed": 1}, None),
    (layers.RandomZoom, {"height_factor": 0.2, "width_factor": (-0.1, 0.3), "seed": 1}, None),
    (layers.RandomTranslation, {"height_factor": 0.2, "width_factor": 0.1, "seed": 1}, None),
    (layers.RandomContrast, {"factor": 0.3, "seed": 1}, None),
    (layers.RandomBrightness, {"factor": 0.2, "seed": 1}, None),
]
FIXED_CASES = [
    (layers.Resizing, {"height": 4, "width": 6}, (2, 4, 6, 3)),
    (layers.Resizing, {"height": 5, "width": 5, "crop_to_aspect_ratio": True}, (2, 5, 5, 3)),
    (layers.CenterCrop, {"height": 4, "width": 5}, (2, 4, 5, 3)),
]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


@pytest.mark.parametrize("cls,kwargs,out_shape", RANDOM_CASES + FIXED_CASES)
def test_layer_contract(cls: type, kwargs: dict, out_shape: tuple | None) -> None:
    check_layer(
        cls,
        kwargs,
        input_shape=(2, 8, 8, 3),
        expected_output_shape=out_shape or (2, 8, 8, 3),
        expected_num_trainable_weights=0,
    )


@pytest.mark.parametrize("cls,kwargs,out_shape", RANDOM_CASES)
def test_random_layers_identity_at_inference_and_seeded(
    cls: type, kwargs: dict, out_shape: tuple | None
) -> None:
    if cls is not layers.RandomCrop:
        np.testing.assert_array_equal(_np(cls(**kwargs)(IMAGES, training=False)), IMAGES)
    first = _np(cls(**kwargs)(IMAGES, training=True))
    second = _np(cls(**kwargs)(IMAGES, training=True))
    np.testing.assert_array_equal(first, second)
    # Single images work, with the batch's shape less the batch axis.
    single = _np(cls(**kwargs)(IMAGES[0], training=True))
    assert single.shape == first.shape[1:]


def _bilinear_reference(x: np.ndarray, out_h: int, out_w: int) -> np.ndarray:
    """Half-pixel-centre bilinear resize of a (b, h, w, c) batch, edges clamped."""

    def weights(n_in: int, n_out: int) -> np.ndarray:
        m = np.zeros((n_out, n_in))
        for i in range(n_out):
            src = min(max((i + 0.5) * n_in / n_out - 0.5, 0.0), n_in - 1)
            lo = int(np.floor(src))
            hi = min(lo + 1, n_in - 1)
            m[i, lo] += 1 - (src - lo)
            m[i, hi] += src - lo
        return m

    return np.einsum("ph,bhwc,qw->bpqc", weights(x.shape[1], out_h), x, weights(x.shape[2], out_w))


def test_resizing_bilinear_matches_numpy() -> None:
    out = _np(layers.Resizing(11, 13)(IMAGES))
    np.testing.assert_allclose(out, _bilinear_reference(IMAGES, 11, 13), rtol=1e-4, atol=1e-3)


def test_resizing_channels_first_and_integer_inputs() -> None:
    last = _np(layers.Resizing(5, 7, interpolation="nearest")(IMAGES))
    first = _np(
        layers.Resizing(5, 7, interpolation="nearest", data_format="channels_first")(
            IMAGES.transpose(0, 3, 1, 2)
        )
    )
    np.testing.assert_array_equal(first, last.transpose(0, 3, 1, 2))
    ints = IMAGES.astype("uint8")
    out = layers.Resizing(11, 13)(ints)
    assert str(ops.dtype(out)) == "uint8"
    expected = np.clip(np.round(_bilinear_reference(ints.astype("float64"), 11, 13)), 0, 255)
    assert np.max(np.abs(_np(out).astype("float64") - expected)) <= 1


def test_center_crop_matches_slicing() -> None:
    np.testing.assert_array_equal(_np(layers.CenterCrop(4, 5)(IMAGES)), IMAGES[:, 2:6, 1:6])
    cf = layers.CenterCrop(4, 5, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(_np(cf), IMAGES[:, 2:6, 1:6].transpose(0, 3, 1, 2))
    assert str(ops.dtype(layers.CenterCrop(4, 5)(IMAGES.astype("uint8")))) == "float32"


def test_random_crop_takes_a_window() -> None:
    out = _np(layers.RandomCrop(5, 6, seed=3)(IMAGES, training=True))
    windows = [IMAGES[:, i : i + 5, j : j + 6] for i in range(4) for j in range(3)]
    assert any(np.array_equal(out, w) for w in windows)
    inference = _np(layers.RandomCrop(5, 6)(IMAGES, training=False))
    expected = _np(layers.Resizing(5, 6, crop_to_aspect_ratio=True)(IMAGES))
    np.testing.assert_allclose(inference, expected, rtol=1e-6)


def test_random_flip_outputs_are_flips_about_half_the_time() -> None:
    batch = RNG.uniform(0, 1, size=(200, 4, 5, 1)).astype("float32")
    out = _np(layers.RandomFlip("horizontal", seed=7)(batch, training=True))
    flipped = [np.array_equal(o, x[:, ::-1]) for o, x in zip(out, batch)]
    same = [np.array_equal(o, x) for o, x in zip(out, batch)]
    assert all(f or s for f, s in zip(flipped, same))
    assert 60 <= sum(flipped) <= 140
    both = _np(layers.RandomFlip(seed=7)(batch, training=True))
    options = lambda x: [x, x[::-1], x[:, ::-1], x[::-1, ::-1]]  # noqa: E731
    assert all(any(np.array_equal(o, c) for c in options(x)) for o, x in zip(both, batch))


def test_random_flip_channels_first_matches_channels_last() -> None:
    last = _np(layers.RandomFlip(seed=2)(IMAGES, training=True))
    first = _np(
        layers.RandomFlip(seed=2, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2))
    )
    np.testing.assert_array_equal(first, last.transpose(0, 3, 1, 2))


def test_rotation_by_quarter_turn_is_rot90() -> None:
    layer = layers.RandomRotation((0.25, 0.25), interpolation="nearest", seed=0)
    out = _np(layer(IMAGES, training=True))
    np.testing.assert_array_equal(out, np.rot90(IMAGES, k=1, axes=(1, 2)))


def test_translation_shifts_with_constant_fill() -> None:
    layer = layers.RandomTranslation(
        (0.25, 0.25), (0.0, 0.0), fill_mode="constant", interpolation="nearest", seed=0
    )
    out = _np(layer(IMAGES, training=True))
    expected = np.zeros_like(IMAGES)
    expected[:, 2:] = IMAGES[:, :-2]
    np.testing.assert_allclose(out, expected, atol=1e-4)


def test_zoom_in_by_two_matches_nearest_reference() -> None:
    layer = layers.RandomZoom((-0.5, -0.5), interpolation="nearest", seed=0)
    out = _np(layer(IMAGES, training=True))
    src = np.round(0.5 * np.arange(8) + 3.5 * 0.5).astype(int)
    np.testing.assert_array_equal(out, IMAGES[:, src][:, :, src])


def test_contrast_formula() -> None:
    images = RNG.uniform(100, 150, size=(6, 5, 5, 3)).astype("float32")
    out = _np(layers.RandomContrast((0.2, 0.4), value_range=(-1e6, 1e6), seed=4)(images))
    mean = images.mean(axis=(1, 2), keepdims=True)
    factor = (out - mean) / (images - mean)
    per_image = factor.reshape(6, -1)
    np.testing.assert_allclose(per_image, per_image[:, :1] * np.ones_like(per_image), rtol=1e-3)
    assert np.all((per_image >= 0.8 - 1e-4) & (per_image <= 1.4 + 1e-4))
    clipped = _np(layers.RandomContrast(0.9, value_range=(110, 140), seed=4)(images))
    assert clipped.min() >= 110 and clipped.max() <= 140


def test_brightness_formula() -> None:
    out = _np(layers.RandomBrightness((-0.1, 0.2), value_range=(-1e3, 1e3), seed=5)(IMAGES))
    delta = (out - IMAGES).reshape(4, -1)
    np.testing.assert_allclose(delta, delta[:, :1] * np.ones_like(delta), atol=1e-2)
    assert np.all((delta >= -200 - 1e-2) & (delta <= 400 + 1e-2))
    clipped = _np(layers.RandomBrightness(0.5, seed=5)(IMAGES))
    assert clipped.min() >= 0 and clipped.max() <= 255


@pytest.mark.parametrize(
    "cls,kwargs,arg",
    [
        (layers.RandomFlip, {"mode": "diagonal"}, "mode"),
        (layers.RandomContrast, {"factor": 1.5}, "factor"),
        (layers.RandomBrightness, {"factor": 0.1, "value_range": (1, 0)}, "value_range"),
        (layers.RandomRotation, {"factor": 0.1, "fill_mode": "edge"}, "fill_mode"),
        (layers.Resizing, {"height": 0, "width": 3}, "height"),
        (layers.CenterCrop, {"height": 3, "width": 3, "data_format": "nhwc"}, "data_format"),
    ],
)
def test_bad_arguments_name_the_argument(cls: type, kwargs: dict, arg: str) -> None:
    with pytest.raises(ValueError, match=f"`{arg}`"):
        cls(**kwargs)


def test_configs_round_trip() -> None:
    for cls, kwargs, _ in RANDOM_CASES + FIXED_CASES:
        layer = cls(**kwargs)
        config = layer.get_config()
        assert cls.from_config(config).get_config() == config
