"""ConvLSTM1D/2D/3D: the layer contract, numerics against the NumPy loop, both data
formats, masks and shapes."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers
from lamina.testing import assert_allclose, check_layer

CONTRACT = [
    (layers.ConvLSTM1D, {"filters": 3, "kernel_size": 3}, (2, 4, 7, 2)),
    (layers.ConvLSTM1D, {"filters": 2, "kernel_size": 2, "padding": "same",
                         "return_sequences": True}, (2, 3, 6, 2)),
    (layers.ConvLSTM2D, {"filters": 2, "kernel_size": 3, "return_state": True},
     (2, 3, 5, 5, 2)),
    (layers.ConvLSTM2D, {"filters": 2, "kernel_size": 2, "strides": 2, "padding": "same",
                         "go_backwards": True, "dropout": 0.2, "seed": 1}, (2, 3, 5, 4, 1)),
    (layers.ConvLSTM3D, {"filters": 2, "kernel_size": 2}, (1, 3, 3, 4, 3, 1)),
]


@pytest.mark.parametrize(
    "cls,kwargs,shape", CONTRACT, ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(CONTRACT)]
)
def test_conv_lstm_contract(cls, kwargs, shape):
    check_layer(
        cls,
        kwargs,
        shape,
        expected_num_trainable_weights=3,
        supports_masking=True,
        run_mixed_precision_check=cls is layers.ConvLSTM1D,
    )


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("padding,strides", [("valid", 1), ("same", 2)])
def test_conv_lstm2d_matches_reference(data_format, padding, strides, ref):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 5, 3))
    mask = np.ones((2, 4), bool)
    mask[1, 2:] = False
    layer = layers.ConvLSTM2D(2, 3, strides=strides, padding=padding, data_format=data_format,
                              return_sequences=True, return_state=True)
    given = x if data_format == "channels_last" else np.moveaxis(x, -1, 2)
    out, h, c = layer(given.astype("float32"), mask=mask)
    kernel, recurrent, bias = ref.weights_of(layer)

    def step(a, s):
        return ref.conv_lstm_step(a, s, kernel, recurrent, bias, strides, padding)

    first, _ = step(x[:, 0], [np.zeros((2, 1, 1, 2))] * 2)  # learn the state's spatial size
    zeros = np.zeros((2, *first.shape[1:]))
    want, (want_h, want_c) = ref.run(step, x, [zeros, zeros], mask=mask)
    if data_format == "channels_first":
        want, want_h, want_c = (np.moveaxis(a, -1, -3) for a in (want, want_h, want_c))
    assert_allclose(out, want, loose=10)
    assert_allclose(h, want_h, loose=10)
    assert_allclose(c, want_c, loose=10)


def test_conv_lstm_shapes_config_and_errors():
    layer = layers.ConvLSTM2D(4, (3, 2), padding="same", return_sequences=True)
    assert layer.compute_output_shape((None, 5, 8, 6, 3)) == (None, 5, 8, 6, 4)
    config = layer.get_config()
    assert config["kernel_size"] == (3, 2) and config["filters"] == 4
    assert layers.ConvLSTM2D.from_config(config).get_config() == config
    layer.build((None, 5, 8, 6, 3))
    assert [tuple(w.shape) for w in layer.weights] == [(3, 2, 3, 16), (3, 2, 4, 16), (16,)]
    with pytest.raises(ValueError, match="padding"):
        layers.ConvLSTM1D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="filters"):
        layers.ConvLSTM3D(0, 3)
