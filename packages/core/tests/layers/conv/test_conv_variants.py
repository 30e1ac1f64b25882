"""Transposed, depthwise and separable convolutions vs NumPy loop references."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import ops
from lamina.layers.convolutional import (
    Conv1DTranspose,
    Conv2DTranspose,
    Conv3DTranspose,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from lamina.testing import assert_allclose, check_layer

FORMATS = ["channels_last", "channels_first"]


def _tup(value, rank):
    return (value,) * rank if isinstance(value, int) else tuple(value)


def _call(layer, x_last, data_format):
    """Build `layer` for `x_last` (given channels_last) in `data_format`; return input shape."""
    x = x_last if data_format == "channels_last" else np.moveaxis(x_last, -1, 1)
    layer.build(x.shape)
    return x.astype("float32")


def _out(layer, x, data_format):
    y = ops.convert_to_numpy(layer(x)).astype(np.float64)
    assert y.shape == layer.compute_output_shape(x.shape)
    return y if data_format == "channels_last" else np.moveaxis(y, 1, -1)


TRANSPOSE_CASES = [
    (Conv1DTranspose, (5,), {"filters": 3, "kernel_size": 3}),
    (Conv1DTranspose, (5,), {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"}),
    (Conv1DTranspose, (5,), {"filters": 2, "kernel_size": 4, "strides": 3, "output_padding": 1}),
    (Conv1DTranspose, (6,), {"filters": 2, "kernel_size": 3, "dilation_rate": 2}),
    (Conv2DTranspose, (4, 3), {"filters": 3, "kernel_size": (3, 2), "strides": (2, 1)}),
    (Conv2DTranspose, (4, 4), {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same",
                               "output_padding": 1}),
    (Conv3DTranspose, (3, 2, 3), {"filters": 2, "kernel_size": 2, "strides": 2}),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=lambda c: f"{c[0].__name__}-{c[2]}")
def test_conv_transpose_matches_reference(case, data_format, ref):
    cls, size, kwargs = case
    rank = len(size)
    rng = np.random.default_rng(2)
    x_last = rng.normal(size=(2, *size, 4))
    layer = cls(data_format=data_format, **kwargs)
    x = _call(layer, x_last, data_format)
    kernel = rng.normal(size=layer.kernel.shape)
    bias = rng.normal(size=layer.bias.shape)
    layer.set_weights([kernel, bias])
    got = _out(layer, x, data_format)
    outpad = kwargs.get("output_padding")
    want = ref.conv_transpose(
        x_last,
        kernel,
        _tup(kwargs.get("strides", 1), rank),
        kwargs.get("padding", "valid"),
        _tup(kwargs.get("dilation_rate", 1), rank),
        None if outpad is None else _tup(outpad, rank),
    ) + bias
    assert_allclose(got, want, dtype="float32", loose=10.0)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv_transpose_is_adjoint_of_conv(padding, ref):
    """<conv(y, K), x> == <conv_transpose(x, K), y>: the transpose is the conv's gradient."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 4, 5, 3))
    layer = Conv2DTranspose(2, 3, strides=2, padding=padding, use_bias=False,
                            data_format="channels_last")  # fmt: skip
    layer.build(x.shape)
    kernel = rng.normal(size=layer.kernel.shape)  # (3, 3, 2, 3)
    layer.set_weights([kernel])
    up = ops.convert_to_numpy(layer(x.astype("float32"))).astype(np.float64)
    y = rng.normal(size=up.shape)
    down = ref.conv(y, kernel, (2, 2), padding, (1, 1))
    assert down.shape == x.shape
    np.testing.assert_allclose(np.sum(down * x), np.sum(up * y), rtol=1e-4)


@pytest.mark.parametrize(
    ("layer", "in_shape", "out_shape"),
    [
        (Conv1DTranspose(4, 3, strides=2, data_format="channels_last"),
         (None, 5, 2), (None, 11, 4)),
        (Conv1DTranspose(4, 3, strides=2, padding="same", data_format="channels_last"),
         (None, None, 2), (None, None, 4)),
        (Conv2DTranspose(4, 3, strides=2, padding="same", output_padding=1,
                         data_format="channels_first"),
         (None, 2, 5, None), (None, 4, 10, None)),
        (Conv3DTranspose(1, 2, strides=2, data_format="channels_last"),
         (2, 3, 3, 3, 1), (2, 6, 6, 6, 1)),
    ],
)  # fmt: skip
def test_transpose_output_shape(layer, in_shape, out_shape):
    assert layer.compute_output_shape(in_shape) == out_shape


DEPTHWISE_CASES = [
    (DepthwiseConv1D, (9,), {"kernel_size": 3, "depth_multiplier": 2}),
    (DepthwiseConv1D, (9,), {"kernel_size": 3, "strides": 2, "padding": "same"}),
    (DepthwiseConv2D, (7, 6), {"kernel_size": (3, 2), "depth_multiplier": 3}),
    (DepthwiseConv2D, (7, 7), {"kernel_size": 3, "dilation_rate": 2, "padding": "same"}),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=lambda c: f"{c[0].__name__}-{c[2]}")
def test_depthwise_matches_reference(case, data_format, ref):
    cls, size, kwargs = case
    rank = len(size)
    rng = np.random.default_rng(4)
    x_last = rng.normal(size=(2, *size, 3))
    layer = cls(data_format=data_format, **kwargs)
    x = _call(layer, x_last, data_format)
    assert layer.kernel.shape == (*_tup(kwargs["kernel_size"], rank), 3,
                                  kwargs.get("depth_multiplier", 1))  # fmt: skip
    kernel = rng.normal(size=layer.kernel.shape)
    bias = rng.normal(size=layer.bias.shape)
    layer.set_weights([kernel, bias])
    got = _out(layer, x, data_format)
    want = ref.depthwise(
        x_last,
        kernel,
        _tup(kwargs.get("strides", 1), rank),
        kwargs.get("padding", "valid"),
        _tup(kwargs.get("dilation_rate", 1), rank),
    ) + bias
    assert_allclose(got, want, dtype="float32", loose=10.0)


SEPARABLE_CASES = [
    (SeparableConv1D, (9,), {"filters": 4, "kernel_size": 3, "depth_multiplier": 2}),
    (SeparableConv1D, (9,), {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"}),
    (SeparableConv2D, (6, 7), {"filters": 5, "kernel_size": (2, 3)}),
    (SeparableConv2D, (7, 7), {"filters": 2, "kernel_size": 3, "dilation_rate": 2,
                               "padding": "same", "depth_multiplier": 2}),
]


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", SEPARABLE_CASES, ids=lambda c: f"{c[0].__name__}-{c[2]}")
def test_separable_matches_reference(case, data_format, ref):
    cls, size, kwargs = case
    rank = len(size)
    rng = np.random.default_rng(5)
    x_last = rng.normal(size=(2, *size, 3))
    layer = cls(data_format=data_format, **kwargs)
    x = _call(layer, x_last, data_format)
    dk = rng.normal(size=layer.depthwise_kernel.shape)
    pk = rng.normal(size=layer.pointwise_kernel.shape)
    bias = rng.normal(size=layer.bias.shape)
    layer.set_weights([dk, pk, bias])
    got = _out(layer, x, data_format)
    mid = ref.depthwise(
        x_last,
        dk,
        _tup(kwargs.get("strides", 1), rank),
        kwargs.get("padding", "valid"),
        _tup(kwargs.get("dilation_rate", 1), rank),
    )
    want = mid @ pk.reshape(pk.shape[-2:]) + bias
    assert_allclose(got, want, dtype="float32", loose=10.0)


@pytest.mark.parametrize(
    ("cls", "kwargs", "shape", "out", "n_weights"),
    [
        (Conv1DTranspose, {"filters": 2, "kernel_size": 3, "strides": 2}, (2, 4, 3), (2, 9, 2), 2),
        (Conv2DTranspose, {"filters": 2, "kernel_size": 3, "padding": "same", "strides": 2},
         (2, 3, 3, 2), (2, 6, 6, 2), 2),
        (Conv3DTranspose, {"filters": 2, "kernel_size": 2}, (1, 2, 2, 2, 2), (1, 3, 3, 3, 2), 2),
        (DepthwiseConv1D, {"kernel_size": 3, "depth_multiplier": 2}, (2, 5, 3), (2, 3, 6), 2),
        (DepthwiseConv2D, {"kernel_size": 2, "use_bias": False}, (2, 4, 4, 3), (2, 3, 3, 3), 1),
        (SeparableConv1D, {"filters": 4, "kernel_size": 2}, (2, 5, 3), (2, 4, 4), 3),
        (SeparableConv2D, {"filters": 4, "kernel_size": 2, "padding": "same"},
         (2, 4, 4, 3), (2, 4, 4, 4), 3),
    ],
)  # fmt: skip
def test_check_layer_contract(cls, kwargs, shape, out, n_weights):
    check_layer(
        cls,
        {**kwargs, "data_format": "channels_last"},
        shape,
        expected_output_shape=out,
        expected_num_trainable_weights=n_weights,
        expected_num_non_trainable_weights=0,
    )


def test_configs_keep_every_argument():
    t = Conv2DTranspose(3, (2, 3), strides=2, padding="same", output_padding=(1, 0),
                        data_format="channels_first", dilation_rate=1, activation="tanh",
                        kernel_initializer="ones", kernel_regularizer="l2")  # fmt: skip
    config = t.get_config()
    assert config["output_padding"] == (1, 0) and "groups" not in config
    assert config["kernel_size"] == (2, 3) and config["strides"] == (2, 2)
    d = DepthwiseConv2D(3, depth_multiplier=4, depthwise_regularizer="l1",
                        depthwise_constraint="non_neg", data_format="channels_last")  # fmt: skip
    s = SeparableConv1D(5, 3, depth_multiplier=2, pointwise_initializer="zeros",
                        pointwise_regularizer="l2", pointwise_constraint="unit_norm",
                        depthwise_initializer="ones", data_format="channels_first")  # fmt: skip
    assert d.get_config()["depth_multiplier"] == 4
    assert d.get_config()["depthwise_regularizer"] is not None
    assert s.get_config()["pointwise_constraint"] is not None
    assert s.get_config()["filters"] == 5
    for layer in (t, d, s):
        config = layer.get_config()
        json.dumps(config)
        assert type(layer).from_config(config).get_config() == config


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Conv2DTranspose(0, 3), "filters"),
        (lambda: Conv2DTranspose(2, 3, padding="foo"), "padding"),
        (lambda: Conv1DTranspose(2, 3, padding="causal"), "padding"),
        (lambda: Conv2DTranspose(2, 3, strides=2, output_padding=2), "output_padding"),
        (lambda: Conv2DTranspose(2, 3, output_padding=-1), "output_padding"),
        (lambda: DepthwiseConv2D(3, depth_multiplier=0), "depth_multiplier"),
        (lambda: DepthwiseConv1D(3, padding="causal"), "padding"),
        (lambda: DepthwiseConv2D((3, 3, 3)), "kernel_size"),
        (lambda: SeparableConv2D(0, 3), "filters"),
        (lambda: SeparableConv2D(2, 3, depth_multiplier=-1), "depth_multiplier"),
        (lambda: SeparableConv1D(2, 3, data_format="NCW"), "data_format"),
        (lambda: SeparableConv2D(2, 3, strides=2, dilation_rate=2), "dilation_rate"),
    ],
)
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
