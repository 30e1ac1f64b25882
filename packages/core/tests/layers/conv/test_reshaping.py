"""ZeroPadding, Cropping and UpSampling (1D-3D) vs NumPy; shapes, configs and errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import ops
from lamina.layers.reshaping.cropping import Cropping1D, Cropping2D, Cropping3D
from lamina.layers.reshaping.up_sampling import UpSampling1D, UpSampling2D, UpSampling3D
from lamina.layers.reshaping.zero_padding import ZeroPadding1D, ZeroPadding2D, ZeroPadding3D
from lamina.testing import assert_allclose, check_layer

FORMATS = ["channels_last", "channels_first"]


def _apply(layer, x_last, data_format):
    """Run `layer` on `x_last` laid out in `data_format`; return channels_last NumPy output."""
    x = x_last if data_format == "channels_last" else np.moveaxis(x_last, -1, 1)
    y = ops.convert_to_numpy(layer(x.astype("float32")))
    assert y.shape == layer.compute_output_shape(x.shape)
    return y if data_format == "channels_last" else np.moveaxis(y, 1, -1)


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize(
    ("cls", "padding", "pairs", "size"),
    [
        (ZeroPadding1D, 2, [(2, 2)], (4,)),
        (ZeroPadding1D, (0, 3), [(0, 3)], (4,)),
        (ZeroPadding2D, 1, [(1, 1), (1, 1)], (3, 4)),
        (ZeroPadding2D, (2, 0), [(2, 2), (0, 0)], (3, 4)),
        (ZeroPadding2D, ((1, 0), (2, 3)), [(1, 0), (2, 3)], (3, 4)),
        (ZeroPadding3D, ((0, 1), (2, 0), (1, 1)), [(0, 1), (2, 0), (1, 1)], (2, 3, 2)),
        (ZeroPadding3D, (1, 0, 2), [(1, 1), (0, 0), (2, 2)], (2, 3, 2)),
    ],
)
def test_zero_padding(cls, padding, pairs, size, data_format):
    x = np.random.default_rng(0).normal(size=(2, *size, 3))
    got = _apply(cls(padding, data_format=data_format), x, data_format)
    want = np.pad(x, [(0, 0), *pairs, (0, 0)])
    assert_allclose(got, want, dtype="float32")


@pytest.mark.parametrize(
    ("layer", "pairs", "size"),
    [
        (Cropping1D((1, 2)), [(1, 2)], (6,)),
        (Cropping1D(0), [(0, 0)], (6,)),
        (Cropping2D(((1, 0), (2, 2)), data_format="channels_last"), [(1, 0), (2, 2)], (5, 6)),
        (Cropping2D(((1, 0), (2, 2)), data_format="channels_first"), [(1, 0), (2, 2)], (5, 6)),
        (Cropping2D(1, data_format="channels_first"), [(1, 1), (1, 1)], (4, 4)),
        (Cropping3D((1, 0, 2), data_format="channels_last"), [(1, 1), (0, 0), (2, 2)],
         (3, 2, 5)),
        (Cropping3D(((0, 1), (1, 1), (2, 0)), data_format="channels_first"),
         [(0, 1), (1, 1), (2, 0)], (3, 4, 5)),
    ],
)  # fmt: skip
def test_cropping(layer, pairs, size):
    x = np.random.default_rng(1).normal(size=(2, *size, 3))
    got = _apply(layer, x, layer.data_format)
    key = tuple(slice(a, n - b) for (a, b), n in zip(pairs, size))
    assert_allclose(got, x[(slice(None), *key, slice(None))], dtype="float32")


@pytest.mark.parametrize(
    ("layer", "factors", "size"),
    [
        (UpSampling1D(3), (3,), (4,)),
        (UpSampling2D((2, 3), data_format="channels_last"), (2, 3), (3, 2)),
        (UpSampling2D(2, data_format="channels_first"), (2, 2), (3, 2)),
        (UpSampling3D((1, 2, 3), data_format="channels_last"), (1, 2, 3), (2, 2, 2)),
        (UpSampling3D(2, data_format="channels_first"), (2, 2, 2), (2, 3, 2)),
    ],
)
def test_up_sampling_nearest(layer, factors, size):
    x = np.random.default_rng(2).normal(size=(2, *size, 3))
    got = _apply(layer, x, layer.data_format)
    want = x
    for axis, f in enumerate(factors, start=1):
        want = np.repeat(want, f, axis=axis)
    assert_allclose(got, want, dtype="float32")


def _bilinear_1d(n, factor):
    """Half-pixel-centre linear interpolation weights (n * factor, n)."""
    out = np.zeros((n * factor, n))
    for o in range(n * factor):
        src = min(max((o + 0.5) / factor - 0.5, 0.0), n - 1)
        lo = int(np.floor(src))
        hi = min(lo + 1, n - 1)
        out[o, lo] += 1.0 - (src - lo)
        out[o, hi] += src - lo
    return out


@pytest.mark.parametrize("data_format", FORMATS)
def test_up_sampling_2d_bilinear(data_format):
    x = np.random.default_rng(3).normal(size=(2, 3, 4, 2))
    layer = UpSampling2D((2, 3), data_format=data_format, interpolation="bilinear")
    got = _apply(layer, x, data_format)
    want = np.einsum("oh,pw,bhwc->bopc", _bilinear_1d(3, 2), _bilinear_1d(4, 3), x)
    assert_allclose(got, want, dtype="float32")


@pytest.mark.parametrize(
    ("layer", "in_shape", "out_shape"),
    [
        (ZeroPadding1D(2, data_format="channels_last"), (None, None, 3), (None, None, 3)),
        (ZeroPadding2D(((1, 0), (2, 3)), data_format="channels_first"),
         (None, 3, 4, None), (None, 3, 5, None)),
        (Cropping1D((1, 1)), (None, 5, 2), (None, 3, 2)),
        (Cropping3D(1, data_format="channels_last"), (None, 3, None, 4, 2), (None, 1, None, 2, 2)),
        (UpSampling2D(2, data_format="channels_first"), (1, 3, None, 4), (1, 3, None, 8)),
        (UpSampling3D((1, 2, 3), data_format="channels_last"),
         (None, 2, 2, 2, 1), (None, 2, 4, 6, 1)),
    ],
)  # fmt: skip
def test_compute_output_shape(layer, in_shape, out_shape):
    assert layer.compute_output_shape(in_shape) == out_shape


@pytest.mark.parametrize(
    ("cls", "kwargs", "shape", "out"),
    [
        (ZeroPadding1D, {"padding": 1, "data_format": "channels_last"}, (2, 4, 3), (2, 6, 3)),
        (ZeroPadding2D, {"padding": (1, 2), "data_format": "channels_last"},
         (2, 3, 3, 2), (2, 5, 7, 2)),
        (ZeroPadding3D, {"padding": 1, "data_format": "channels_last"},
         (1, 2, 2, 2, 2), (1, 4, 4, 4, 2)),
        (Cropping1D, {"cropping": (1, 1)}, (2, 5, 3), (2, 3, 3)),
        (Cropping2D, {"cropping": 1, "data_format": "channels_last"}, (2, 4, 4, 3), (2, 2, 2, 3)),
        (Cropping3D, {"cropping": 1, "data_format": "channels_last"},
         (1, 3, 3, 3, 2), (1, 1, 1, 1, 2)),
        (UpSampling1D, {"size": 2}, (2, 3, 2), (2, 6, 2)),
        (UpSampling2D, {"size": 2, "interpolation": "bilinear", "data_format": "channels_last"},
         (2, 3, 3, 2), (2, 6, 6, 2)),
        (UpSampling3D, {"size": 2, "data_format": "channels_last"},
         (1, 2, 2, 2, 2), (1, 4, 4, 4, 2)),
    ],
)  # fmt: skip
def test_check_layer_contract(cls, kwargs, shape, out):
    check_layer(
        cls,
        kwargs,
        shape,
        expected_output_shape=out,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
    )


def test_configs():
    layers = [
        ZeroPadding1D((1, 2), data_format="channels_first"),
        ZeroPadding2D(((1, 0), (2, 3))),
        ZeroPadding3D(2, data_format="channels_first"),
        Cropping1D((2, 0)),
        Cropping2D(((1, 0), (0, 2)), data_format="channels_first"),
        Cropping3D(1),
        UpSampling1D(4),
        UpSampling2D((2, 3), interpolation="bilinear", data_format="channels_first"),
        UpSampling3D((1, 2, 2)),
    ]
    assert layers[0].get_config()["padding"] == (1, 2)
    assert layers[1].get_config()["padding"] == ((1, 0), (2, 3))
    assert layers[2].get_config()["padding"] == ((2, 2), (2, 2), (2, 2))
    assert layers[4].get_config()["cropping"] == ((1, 0), (0, 2))
    assert layers[6].get_config()["size"] == 4
    assert layers[7].get_config()["interpolation"] == "bilinear"
    for layer in layers:
        config = layer.get_config()
        json.dumps(config)
        assert type(layer).from_config(config).get_config() == config


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ZeroPadding1D(-1), "padding"),
        (lambda: ZeroPadding2D((1, 2, 3)), "padding"),
        (lambda: ZeroPadding2D("foo"), "padding"),
        (lambda: ZeroPadding3D(((1, 1), (1, 1))), "padding"),
        (lambda: ZeroPadding2D(data_format="bad"), "data_format"),
        (lambda: Cropping1D((1, 2, 3)), "cropping"),
        (lambda: Cropping2D(((1, -1), (0, 0))), "cropping"),
        (lambda: Cropping2D(((2, 2), (0, 0)), data_format="channels_last")
         .compute_output_shape((1, 4, 4, 1)), "cropping"),
        (lambda: UpSampling1D(0), "size"),
        (lambda: UpSampling2D((2, 2, 2)), "size"),
        (lambda: UpSampling2D(interpolation="foo"), "interpolation"),
        (lambda: UpSampling3D(2.5), "size"),
    ],
)  # fmt: skip
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
