"""Conv1D/2D/3D: numerics vs a NumPy loop reference, shapes, configs and argument errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import ops
from lamina.layers.convolutional import Conv1D, Conv2D, Conv3D
from lamina.testing import assert_allclose, check_layer

FORMATS = ["channels_last", "channels_first"]

# (class, spatial input size, kwargs); 4 input channels, batch 2.
CASES = [
    (Conv1D, (9,), {"filters": 3, "kernel_size": 3}),
    (Conv1D, (9,), {"filters": 3, "kernel_size": 3, "strides": 2, "padding": "same"}),
    (Conv1D, (9,), {"filters": 3, "kernel_size": 3, "dilation_rate": 2, "padding": "causal"}),
    (Conv1D, (8,), {"filters": 6, "kernel_size": 2, "groups": 2, "padding": "same"}),
    (Conv2D, (7, 6), {"filters": 5, "kernel_size": (3, 2), "strides": (2, 1)}),
    (Conv2D, (7, 6), {"filters": 5, "kernel_size": 3, "dilation_rate": 2, "padding": "same"}),
    (Conv2D, (6, 6), {"filters": 4, "kernel_size": 3, "groups": 4, "strides": 2,
                      "padding": "same"}),
    (Conv3D, (4, 5, 4), {"filters": 3, "kernel_size": 2}),
    (Conv3D, (5, 4, 5), {"filters": 2, "kernel_size": (3, 2, 2), "strides": 2, "padding": "same"}),
]


def _ids(case):
    cls, size, kwargs = case
    return f"{cls.__name__}-{size}-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


def _run(layer, x_last, data_format):
    x = x_last if data_format == "channels_last" else np.moveaxis(x_last, -1, 1)
    y = ops.convert_to_numpy(layer(x.astype("float32"))).astype(np.float64)
    return y if data_format == "channels_last" else np.moveaxis(y, 1, -1)


@pytest.mark.parametrize("data_format", FORMATS)
@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_conv_matches_reference(case, data_format, ref):
    cls, size, kwargs = case
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, *size, 4))
    layer = cls(data_format=data_format, **kwargs)
    in_shape = x.shape if data_format == "channels_last" else np.moveaxis(x, -1, 1).shape
    layer.build(in_shape)
    kernel = rng.normal(size=layer.kernel.shape)
    bias = rng.normal(size=layer.bias.shape)
    layer.set_weights([kernel, bias])
    got = _run(layer, x, data_format)
    got_shape = np.moveaxis(got, -1, 1).shape if data_format == "channels_first" else got.shape
    rank = len(size)
    tup = lambda v: (v,) * rank if isinstance(v, int) else tuple(v)  # noqa: E731
    want = ref.conv(
        x,
        kernel,
        tup(kwargs.get("strides", 1)),
        kwargs.get("padding", "valid"),
        tup(kwargs.get("dilation_rate", 1)),
        kwargs.get("groups", 1),
    ) + bias
    # float32 sums of up to 48 products: 10x the float32 table tolerance.
    assert_allclose(got, want, dtype="float32", loose=10.0)
    # The static shape rule agrees with the computed output, batch and all.
    expected = layer.compute_output_shape(in_shape)
    assert tuple(got_shape) == expected


def test_activation_and_no_bias(ref):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 6, 6, 3))
    layer = Conv2D(4, 3, activation="relu", use_bias=False, data_format="channels_last")
    layer.build(x.shape)
    assert len(layer.weights) == 1 and layer.bias is None
    kernel = rng.normal(size=(3, 3, 3, 4))
    layer.set_weights([kernel])
    want = np.maximum(ref.conv(x, kernel, (1, 1), "valid", (1, 1)), 0.0)
    assert_allclose(layer(x.astype("float32")), want, dtype="float32", loose=10.0)


@pytest.mark.parametrize(
    ("layer", "in_shape", "out_shape"),
    [
        (Conv1D(8, 3, data_format="channels_last"), (None, None, 4), (None, None, 8)),
        (Conv1D(8, 3, strides=2, padding="same", data_format="channels_last"),
         (None, 11, 4), (None, 6, 8)),
        (Conv1D(8, 4, padding="causal", data_format="channels_last"), (3, 10, 2), (3, 10, 8)),
        (Conv2D(8, 3, data_format="channels_first"), (None, 3, None, 9), (None, 8, None, 7)),
        (Conv2D(8, 3, dilation_rate=2, data_format="channels_last"),
         (1, 9, 9, 3), (1, 5, 5, 8)),
        (Conv3D(2, 2, strides=2, data_format="channels_first"),
         (None, 1, 8, None, 5), (None, 2, 4, None, 2)),
    ],
)  # fmt: skip
def test_compute_output_shape(layer, in_shape, out_shape):
    assert layer.compute_output_shape(in_shape) == out_shape


def test_compute_output_shape_rejects_small_input():
    with pytest.raises(ValueError, match="window does not fit"):
        Conv2D(2, 5, data_format="channels_last").compute_output_shape((1, 3, 3, 1))


@pytest.mark.parametrize(
    ("cls", "kwargs", "shape", "out"),
    [
        (Conv1D, {"filters": 4, "kernel_size": 3}, (2, 7, 3), (2, 5, 4)),
        (Conv1D, {"filters": 4, "kernel_size": 3, "padding": "causal"}, (2, 7, 3), (2, 7, 4)),
        (Conv2D, {"filters": 4, "kernel_size": 3, "padding": "same", "groups": 2},
         (2, 5, 5, 2), (2, 5, 5, 4)),
        (Conv3D, {"filters": 2, "kernel_size": 2}, (1, 3, 3, 3, 2), (1, 2, 2, 2, 2)),
    ],
)  # fmt: skip
def test_check_layer_contract(cls, kwargs, shape, out):
    check_layer(
        cls,
        {**kwargs, "data_format": "channels_last"},
        shape,
        expected_output_shape=out,
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
    )


def test_config_round_trip_keeps_every_argument():
    layer = Conv2D(
        6,
        (3, 1),
        strides=(1, 2),
        padding="same",
        data_format="channels_first",
        groups=3,
        activation="relu",
        use_bias=False,
        kernel_initializer="he_normal",
        bias_initializer="ones",
        kernel_regularizer="l2",
        bias_regularizer="l1",
        activity_regularizer="l1",
        kernel_constraint="non_neg",
        bias_constraint="max_norm",
        name="c2",
    )
    config = layer.get_config()
    json.dumps(config)
    for key, value in {
        "filters": 6, "kernel_size": (3, 1), "strides": (1, 2), "padding": "same",
        "data_format": "channels_first", "dilation_rate": (1, 1), "groups": 3,
        "use_bias": False, "name": "c2",
    }.items():  # fmt: skip
        assert config[key] == value, key
    for key in ("activation", "kernel_initializer", "bias_initializer", "kernel_regularizer",
                "bias_regularizer", "activity_regularizer", "kernel_constraint",
                "bias_constraint"):  # fmt: skip
        assert config[key] is not None, key
    clone = Conv2D.from_config(config)
    assert clone.get_config() == config


def test_default_data_format_follows_config():
    from lamina import config

    before = config.image_data_format()
    try:
        config.set_image_data_format("channels_first")
        layer = Conv2D(2, 3)
        assert layer.data_format == "channels_first"
        assert layer.compute_output_shape((1, 5, 7, 7)) == (1, 2, 5, 5)
    finally:
        config.set_image_data_format(before)
    assert Conv2D(2, 3).data_format == before


def test_regularizer_adds_a_loss():
    layer = Conv1D(2, 2, kernel_regularizer="l2", data_format="channels_last")
    layer(np.ones((1, 4, 3), "float32"))
    assert len(layer.losses) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"filters": 0, "kernel_size": 3}, "filters"),
        ({"filters": -2, "kernel_size": 3}, "filters"),
        ({"filters": 2.5, "kernel_size": 3}, "filters"),
        ({"filters": 4, "kernel_size": 0}, "kernel_size"),
        ({"filters": 4, "kernel_size": (3, 3, 3)}, "kernel_size"),
        ({"filters": 4, "kernel_size": 3, "strides": 0}, "strides"),
        ({"filters": 4, "kernel_size": 3, "padding": "foo"}, "padding"),
        ({"filters": 4, "kernel_size": 3, "padding": "causal"}, "padding"),
        ({"filters": 4, "kernel_size": 3, "data_format": "nhwc"}, "data_format"),
        ({"filters": 4, "kernel_size": 3, "groups": 3}, "groups"),
        ({"filters": 4, "kernel_size": 3, "groups": 0}, "groups"),
        ({"filters": 4, "kernel_size": 3, "strides": 2, "dilation_rate": 2}, "dilation_rate"),
        ({"filters": 4, "kernel_size": 3, "dilation_rate": -1}, "dilation_rate"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Conv2D(**kwargs)


def test_bad_arguments_at_build():
    with pytest.raises(ValueError, match="groups"):
        Conv2D(4, 3, groups=2, data_format="channels_last").build((1, 5, 5, 3))
    with pytest.raises(ValueError, match="channel dim"):
        Conv2D(4, 3, data_format="channels_last").build((1, 5, 5, None))
    with pytest.raises(ValueError, match="rank"):
        Conv2D(4, 3, data_format="channels_last").build((1, 5, 3))


def test_lora_keeps_outputs_then_trains_only_the_factors(ref):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 6, 6, 3)).astype("float32")
    layer = Conv2D(4, 3, data_format="channels_last")
    layer.build(x.shape)
    kernel = rng.normal(size=(3, 3, 3, 4))
    bias = rng.normal(size=(4,))
    layer.set_weights([kernel, bias])
    before = ops.convert_to_numpy(layer(x))
    layer.enable_lora(2)
    # B starts at zero: the outputs do not change; only A, B (and the bias) train.
    assert_allclose(layer(x), before, dtype="float32")
    assert len(layer.trainable_weights) == 3 and len(layer.non_trainable_weights) == 1
    a, b = layer.lora_kernel_a, layer.lora_kernel_b
    assert a.shape == (3, 3, 3, 2) and b.shape == (2, 4)
    b.assign(rng.normal(size=(2, 4)).astype("float32"))
    merged = kernel + np.einsum("hwir,ro->hwio", a.numpy(), b.numpy())
    want = ref.conv(x, merged, (1, 1), "valid", (1, 1)) + bias
    assert_allclose(layer(x), want, dtype="float32", loose=10.0)
    config = layer.get_config()
    assert config["lora_rank"] == 2
    clone = Conv2D.from_config(config)
    clone.build(x.shape)
    assert clone.lora_enabled


def test_lora_rank_argument_is_checked():
    with pytest.raises(ValueError, match="lora_rank"):
        Conv1D(2, 3, lora_rank=0)
