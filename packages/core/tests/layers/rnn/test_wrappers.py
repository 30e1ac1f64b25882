"""Bidirectional, TimeDistributed, Wrapper, StackedRNNCells and users' own cells: the layer
contract and numerics against the NumPy loop."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose, check_layer

B, T, F, U = 3, 5, 4, 3


def _x(seed=0):
    return np.random.default_rng(seed).standard_normal((B, T, F)).astype("float32")


def _lstm_run(ref, layer, x, mask=None, go_backwards=False, states=None, zero_output=False):
    kernel, recurrent, bias = ref.weights_of(layer)
    states = states if states is not None else [np.zeros((B, U)), np.zeros((B, U))]
    return ref.run(
        lambda a, s: ref.lstm_step(a, s, kernel, recurrent, bias),
        x,
        states,
        mask=mask,
        go_backwards=go_backwards,
        zero_output_for_mask=zero_output,
    )


# --- Bidirectional ---------------------------------------------------------------------


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_contract(merge_mode):
    check_layer(
        layers.Bidirectional,
        {"layer": layers.LSTM(U, return_sequences=True), "merge_mode": merge_mode},
        (B, T, F),
        expected_num_trainable_weights=6,
        supports_masking=True,
    )


def test_bidirectional_with_return_state_contract():
    check_layer(
        layers.Bidirectional,
        {"layer": layers.GRU(U, return_state=True)},
        (B, T, F),
        expected_output_shape=[(B, 2 * U), (B, U), (B, U)],
        supports_masking=True,
    )


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
@pytest.mark.parametrize("masked", [False, True])
def test_bidirectional_matches_reference(merge_mode, masked, ref):
    x = _x(1)
    mask = None
    if masked:
        mask = np.ones((B, T), bool)
        mask[0, 3:] = False
        mask[1, 1:] = False
    layer = layers.Bidirectional(
        layers.LSTM(U, return_sequences=True, return_state=True), merge_mode=merge_mode
    )
    out = layer(x, mask=mask)
    # Returning sequences, both directions output zeros at masked steps (as in Keras 3).
    fwd, (fh, fc) = _lstm_run(ref, layer.forward_layer, x, mask, zero_output=True)
    bwd, (bh, bc) = _lstm_run(
        ref, layer.backward_layer, x, mask, go_backwards=True, zero_output=True
    )
    bwd = bwd[:, ::-1]
    expected = {
        "concat": [np.concatenate([fwd, bwd], -1)],
        "sum": [fwd + bwd],
        "mul": [fwd * bwd],
        "ave": [(fwd + bwd) / 2],
        None: [fwd, bwd],
    }[merge_mode]
    want = [*expected, fh, fc, bh, bc]
    assert len(out) == len(want)
    for got, w in zip(out, want):
        assert_allclose(got, w, loose=10)


def test_bidirectional_initial_state_and_backward_layer(ref):
    x = _x(2)
    rng = np.random.default_rng(3)
    states = [rng.standard_normal((B, U)).astype("float32") for _ in range(4)]
    backward = layers.LSTM(U, go_backwards=True, name="mine")
    layer = layers.Bidirectional(layers.LSTM(U), backward_layer=backward, merge_mode="sum")
    out = layer(x, initial_state=states)
    assert layer.backward_layer is backward
    fwd, _ = _lstm_run(ref, layer.forward_layer, x, states=states[:2])
    bwd, _ = _lstm_run(ref, backward, x, go_backwards=True, states=states[2:])
    assert_allclose(out, fwd[:, -1] + bwd[:, -1], loose=10)
    config = layer.get_config()
    again = layers.Bidirectional.from_config(config)
    assert again.get_config() == config
    assert [w.path for w in layer.weights][:1] == [f"{layer.name}/forward_lstm/lstm_cell/kernel"]


def test_bidirectional_argument_errors():
    with pytest.raises(ValueError, match="merge_mode"):
        layers.Bidirectional(layers.LSTM(U), merge_mode="max")
    with pytest.raises(ValueError, match="recurrent layer"):
        layers.Bidirectional(layers.Dense(U))
    with pytest.raises(ValueError, match="go_backwards"):
        layers.Bidirectional(layers.LSTM(U), backward_layer=layers.LSTM(U))
    with pytest.raises(ValueError, match="return_sequences"):
        layers.Bidirectional(
            layers.LSTM(U), backward_layer=layers.LSTM(U, go_backwards=True, return_sequences=True)
        )


def test_bidirectional_stateful_reset():
    layer = layers.Bidirectional(layers.GRU(U, stateful=True))
    layer(_x())
    assert len(layer.states) == 2
    layer.reset_state()
    for state in layer.states:
        np.testing.assert_array_equal(ops.convert_to_numpy(state.value), 0.0)


# --- TimeDistributed and Wrapper -------------------------------------------------------


def test_time_distributed_contract_and_numerics():
    layer = check_layer(
        layers.TimeDistributed,
        {"layer": layers.Dense(2)},
        (B, T, F),
        expected_output_shape=(B, T, 2),
        expected_num_trainable_weights=2,
        supports_masking=True,
    )
    x = _x(4)
    kernel, bias = layer.get_weights()
    assert_allclose(layer(x), x @ kernel + bias)


def test_time_distributed_over_conv_and_in_a_model():
    inputs = layers.Input((T, 6, 6, 2))
    conv = layers.TimeDistributed(layers.Conv2D(3, 3))
    outputs = conv(inputs)
    assert tuple(outputs.shape) == (None, T, 4, 4, 3)
    model = lamina.Model(inputs, outputs)
    x = np.random.default_rng(5).standard_normal((2, T, 6, 6, 2)).astype("float32")
    y = ops.convert_to_numpy(model(x))
    per_step = ops.convert_to_numpy(conv.layer(x[:, 2]))
    np.testing.assert_allclose(y[:, 2], per_step, rtol=1e-5, atol=1e-6)


def test_wrapper_is_a_public_base():
    class Twice(layers.Wrapper):
        def call(self, x):
            return self.layer(self.layer(x))

    layer = Twice(layers.Dense(F, kernel_initializer="identity"))
    x = _x(6)
    assert_allclose(layer(x), x)
    config = layer.get_config()
    assert config["layer"]["class_name"] == "Dense"
    with pytest.raises(ValueError, match="layer"):
        Twice("dense")


# --- StackedRNNCells and users' cells --------------------------------------------------


def test_stacked_cells_contract_and_numerics(ref):
    cells = [layers.LSTMCell(U), layers.LSTMCell(U)]
    check_layer(
        layers.RNN,
        {"cell": layers.StackedRNNCells(cells), "return_sequences": True},
        (B, T, F),
        expected_output_shape=(B, T, U),
        expected_num_trainable_weights=6,
        supports_masking=True,
    )
    layer = layers.RNN([layers.LSTMCell(U), layers.LSTMCell(U)], return_state=True)
    x = _x(7)
    out, first, second = layer(x)
    lower, upper = layer.cell.cells
    w1 = [np.asarray(w, np.float64) for w in lower.get_weights()]
    w2 = [np.asarray(w, np.float64) for w in upper.get_weights()]

    def step(a, s):
        h1, s1 = ref.lstm_step(a, s[:2], *w1)
        h2, s2 = ref.lstm_step(h1, s[2:], *w2)
        return h2, s1 + s2

    want, states = ref.run(step, x, [np.zeros((B, U))] * 4)
    assert_allclose(out, want[:, -1], loose=10)
    for got, w in zip([*first, *second], states):
        assert_allclose(got, w, loose=10)


class MinimalCell(layers.Layer):
    """A user's cell: a running sum of projections, with a nested (two-part) state."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = [units, [units]]

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

    def call(self, inputs, states):
        total, (count,) = states[0], states[1]
        total = total + ops.matmul(inputs, self.kernel)
        return total * 2.0, [total, [count + 1.0]]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_user_cell_with_nested_state():
    check_layer(
        layers.RNN,
        {"cell": MinimalCell(U), "return_sequences": True},
        (B, T, F),
        expected_output_shape=(B, T, U),
        custom_objects={"MinimalCell": MinimalCell},
    )
    layer = layers.RNN(MinimalCell(U), return_state=True)
    x = _x(8)
    out, total, (count,) = layer(x)
    assert_allclose(total, x.sum(axis=1) @ layer.cell.get_weights()[0], loose=10)
    kernel = layer.cell.get_weights()[0]
    assert_allclose(out, 2.0 * (x.sum(axis=1) @ kernel), loose=10)
    np.testing.assert_allclose(ops.convert_to_numpy(count), T)
    mask = np.ones((B, T), bool)
    mask[:, 3:] = False
    _, _, (count,) = layer(x, mask=mask)
    np.testing.assert_allclose(ops.convert_to_numpy(count), 3)
