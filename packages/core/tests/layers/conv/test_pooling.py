"""Pooling layers: windowed, global and adaptive, vs NumPy references; shapes, configs, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import ops
from lamina.layers.pooling import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from lamina.testing import assert_allclose, check_layer

FORMATS = ["channels_last", "channels_first"]


def _apply(layer, x_last, data_format):
    x = x_last if data_format == "channels_last" else np.moveaxis(x_last, -1, 1)
    x = x.astype("float32")
    y = ops.convert_to_numpy(layer(x)).astype(np.float64)
    assert y.shape == layer.compute_output_shape(x.shape)
    return y, x


POOL_CASES = [
    (MaxPooling1D, "max", (9,), {}),
    (MaxPooling1D, "max", (9,), {"pool_size": 3, "strides": 2, "padding": "same"}),
    (AveragePooling1D, "average", (9,), {"pool_size": 2, "strides": 1}),
    (AveragePooling1D, "average", (9,), {"pool_size": 4, "strides": 3, "padding": "same"}),
    (MaxPooling2D, "max", (7, 6), {"pool_size": (3, 2)}),
    (MaxPooling2D, "max", (7, 7), {"pool_size": 3, "strides": 2, "padding": "same"}),
    (AveragePooling2D, "average", (7, 6), {"pool_size": 2, "strides": (1, 2)}),
    (AveragePooling2D, "average", (5, 7), {"pool_size": 3, "strides": 2, "padding": "same"}),
    (MaxPooling3D, "max", (4, 5, 4), {}),
    (AveragePooling3D, "average", (5, 4, 5), {"pool_size": 2, "strides": 2, "padding": "same"}),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0].__name__}-{c[3]}")
def test_pooling_matches_reference(case, data_format, ref):
    cls, mode, size, kwargs = case
    rank = len(size)
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, *size, 3))
    layer = cls(data_format=data_format, **kwargs)
    got, _ = _apply(layer, x, data_format)
    got = got if data_format == "channels_last" else np.moveaxis(got, 1, -1)
    tup = lambda v: (v,) * rank if isinstance(v, int) else tuple(v)  # noqa: E731
    pool = tup(kwargs.get("pool_size", 2))
    strides = tup(kwargs.get("strides") or pool)
    want = ref.pool(x, pool, strides, kwargs.get("padding", "valid"), mode)
    assert_allclose(got, want, dtype="float32")


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize(
    ("cls", "reduce", "size"),
    [
        (GlobalAveragePooling1D, np.mean, (6,)),
        (GlobalAveragePooling2D, np.mean, (4, 5)),
        (GlobalAveragePooling3D, np.mean, (3, 2, 4)),
        (GlobalMaxPooling1D, np.max, (6,)),
        (GlobalMaxPooling2D, np.max, (4, 5)),
        (GlobalMaxPooling3D, np.max, (3, 2, 4)),
    ],
)
def test_global_pooling(cls, reduce, size, data_format, keepdims):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, *size, 3))
    layer = cls(data_format=data_format, keepdims=keepdims)
    got, xin = _apply(layer, x, data_format)
    axes = tuple(range(1, len(size) + 1)) if data_format == "channels_last" else tuple(
        range(2, len(size) + 2)
    )
    want = reduce(xin.astype(np.float64), axis=axes, keepdims=keepdims)
    assert_allclose(got, want, dtype="float32")


@pytest.mark.parametrize("data_format", FORMATS)
def test_global_average_1d_ignores_masked_steps(data_format):
    rng = np.random.default_rng(8)
    x = rng.normal(size=(2, 5, 3))
    mask = np.array([[True, True, False, True, False], [False, True, True, True, True]])
    layer = GlobalAveragePooling1D(data_format=data_format)
    assert layer.supports_masking
    xin = x if data_format == "channels_last" else np.moveaxis(x, -1, 1)
    got = layer(xin.astype("float32"), mask=mask)
    want = np.stack([x[i][mask[i]].mean(axis=0) for i in range(2)])
    assert_allclose(got, want, dtype="float32")
    assert layer.compute_mask(xin, mask) is None


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize(
    ("cls", "mode", "size", "out"),
    [
        (AdaptiveAveragePooling1D, "average", (7,), 3),
        (AdaptiveAveragePooling2D, "average", (7, 5), (3, 2)),
        (AdaptiveMaxPooling2D, "max", (6, 5), (4, 5)),
        (AdaptiveMaxPooling3D, "max", (4, 5, 3), (2, 2, 3)),
    ],
)
def test_adaptive_pooling(cls, mode, size, out, data_format):
    """Bin i of n over length L covers [floor(i L / n), ceil((i + 1) L / n))."""
    import itertools

    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, *size, 3))
    layer = cls(out, data_format=data_format)
    got, _ = _apply(layer, x, data_format)
    got = got if data_format == "channels_last" else np.moveaxis(got, 1, -1)
    outs = (out,) * len(size) if isinstance(out, int) else out
    want = np.zeros((2, *outs, 3))
    reduce = np.max if mode == "max" else np.mean
    for pos in itertools.product(*(range(n) for n in outs)):
        window = tuple(
            slice(i * length // n, -(-(i + 1) * length // n))
            for i, n, length in zip(pos, outs, size)
        )
        block = x[(slice(None), *window, slice(None))]
        want[(slice(None), *pos, slice(None))] = reduce(block, axis=tuple(range(1, len(size) + 1)))
    assert_allclose(got, want, dtype="float32")


@pytest.mark.parametrize(
    ("layer", "in_shape", "out_shape"),
    [
        (MaxPooling1D(data_format="channels_last"), (None, None, 3), (None, None, 3)),
        (MaxPooling1D(3, 2, data_format="channels_last"), (None, 10, 3), (None, 4, 3)),
        (AveragePooling2D(3, 2, "same", data_format="channels_first"),
         (None, 3, 7, None), (None, 3, 4, None)),
        (MaxPooling3D(data_format="channels_last"), (1, 4, 5, 6, 2), (1, 2, 2, 3, 2)),
        (GlobalMaxPooling2D(data_format="channels_first"), (None, 3, None, None), (None, 3)),
        (GlobalAveragePooling3D(data_format="channels_last", keepdims=True),
         (None, 2, 3, 4, 5), (None, 1, 1, 1, 5)),
        (AdaptiveAveragePooling2D((2, 3), data_format="channels_last"),
         (None, None, None, 4), (None, 2, 3, 4)),
    ],
)  # fmt: skip
def test_compute_output_shape(layer, in_shape, out_shape):
    assert layer.compute_output_shape(in_shape) == out_shape


@pytest.mark.parametrize(
    ("cls", "kwargs", "shape", "out"),
    [
        (MaxPooling1D, {}, (2, 6, 3), (2, 3, 3)),
        (AveragePooling2D, {"padding": "same"}, (2, 5, 5, 3), (2, 3, 3, 3)),
        (MaxPooling3D, {"pool_size": 2}, (1, 4, 4, 4, 2), (1, 2, 2, 2, 2)),
        (GlobalAveragePooling1D, {}, (2, 6, 3), (2, 3)),
        (GlobalMaxPooling2D, {"keepdims": True}, (2, 4, 4, 3), (2, 1, 1, 3)),
        (AdaptiveAveragePooling2D, {"output_size": 2}, (2, 5, 5, 3), (2, 2, 2, 3)),
        (AveragePooling1D, {"pool_size": 3, "strides": 2}, (2, 7, 3), (2, 3, 3)),
        (MaxPooling2D, {"padding": "same"}, (2, 5, 4, 3), (2, 3, 2, 3)),
        (AveragePooling3D, {"pool_size": 2}, (1, 4, 4, 4, 2), (1, 2, 2, 2, 2)),
        (GlobalMaxPooling1D, {}, (2, 6, 3), (2, 3)),
        (GlobalAveragePooling2D, {}, (2, 4, 4, 3), (2, 3)),
        (GlobalAveragePooling3D, {"keepdims": True}, (1, 3, 3, 3, 2), (1, 1, 1, 1, 2)),
        (GlobalMaxPooling3D, {}, (1, 3, 3, 3, 2), (1, 2)),
        (AdaptiveAveragePooling1D, {"output_size": 3}, (2, 7, 3), (2, 3, 3)),
        (AdaptiveAveragePooling3D, {"output_size": 2}, (1, 5, 4, 3, 2), (1, 2, 2, 2, 2)),
        (AdaptiveMaxPooling1D, {"output_size": 3}, (2, 7, 3), (2, 3, 3)),
        (AdaptiveMaxPooling2D, {"output_size": (2, 3)}, (2, 5, 7, 3), (2, 2, 3, 3)),
        (AdaptiveMaxPooling3D, {"output_size": 2}, (1, 5, 4, 3, 2), (1, 2, 2, 2, 2)),
    ],
)
def test_check_layer_contract(cls, kwargs, shape, out):
    check_layer(
        cls,
        {**kwargs, "data_format": "channels_last"},
        shape,
        expected_output_shape=out,
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        supports_masking=True if cls is GlobalAveragePooling1D else None,
    )


def test_configs():
    layer = AveragePooling2D((3, 2), strides=None, padding="same", data_format="channels_first")
    config = layer.get_config()
    assert config["pool_size"] == (3, 2) and config["strides"] == (3, 2)
    assert config["padding"] == "same" and config["data_format"] == "channels_first"
    g = GlobalMaxPooling3D(data_format="channels_last", keepdims=True)
    assert g.get_config()["keepdims"] is True
    a = AdaptiveMaxPooling2D((3, 4), data_format="channels_first")
    assert a.get_config()["output_size"] == (3, 4)
    for item in (layer, g, a):
        config = item.get_config()
        json.dumps(config)
        assert type(item).from_config(config).get_config() == config


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: MaxPooling2D(padding="foo"), "padding"),
        (lambda: MaxPooling2D(pool_size=0), "pool_size"),
        (lambda: AveragePooling1D(pool_size=(2, 2)), "pool_size"),
        (lambda: AveragePooling3D(strides=-1), "strides"),
        (lambda: MaxPooling1D(data_format="NWC"), "data_format"),
        (lambda: GlobalAveragePooling2D(keepdims="yes"), "keepdims"),
        (lambda: GlobalMaxPooling1D(data_format="x"), "data_format"),
        (lambda: AdaptiveAveragePooling1D(0), "output_size"),
        (lambda: MaxPooling2D(3, data_format="channels_last").compute_output_shape((1, 2, 2, 1)),
         "window does not fit"),
    ],
)  # fmt: skip
def test_bad_arguments(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()
