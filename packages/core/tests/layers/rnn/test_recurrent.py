"""SimpleRNN, GRU, LSTM and RNN over their cells: the shared layer contract, numerics
against the NumPy loop of `reference.py`, masks, directions, states and dropout."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose, check_layer

B, T, F, U = 3, 6, 4, 5
PATHS = ["auto", False]  # the fused kernel where the backend has one, and the generic loop


def _x(seed=0, shape=(B, T, F)):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _masks():
    right = np.ones((B, T), bool)
    right[0, 4:] = False
    right[2, 2:] = False
    left = right[:, ::-1].copy()
    scattered = np.random.default_rng(3).random((B, T)) > 0.4
    scattered[:, 0] = True
    return {"right": right, "left": left, "scattered": scattered}


def _step(ref, kind, layer):
    kernel, recurrent, bias = ref.weights_of(layer)
    if kind == "SimpleRNN":
        return lambda x, s: ref.simple_rnn_step(x, s, kernel, recurrent, bias)
    if kind == "LSTM":
        return lambda x, s: ref.lstm_step(x, s, kernel, recurrent, bias)
    reset_after = layer.reset_after
    return lambda x, s: ref.gru_step(x, s, kernel, recurrent, bias, reset_after)


def _zeros(kind):
    n = 2 if kind == "LSTM" else 1
    return [np.zeros((B, U)) for _ in range(n)]


LAYERS = {"SimpleRNN": layers.SimpleRNN, "GRU": layers.GRU, "LSTM": layers.LSTM}


def _make(kind, **kwargs):
    if kind != "SimpleRNN":
        kwargs.setdefault("use_cudnn", "auto")
    else:
        kwargs.pop("use_cudnn", None)
    return LAYERS[kind](U, **kwargs)


# --- the shared layer contract ---------------------------------------------------------

CONTRACT = [
    (layers.SimpleRNN, {"units": U}),
    (layers.SimpleRNN, {"units": U, "return_sequences": True, "go_backwards": True}),
    (layers.GRU, {"units": U}),
    (layers.GRU, {"units": U, "reset_after": False, "return_sequences": True}),
    (layers.GRU, {"units": U, "return_state": True, "dropout": 0.2, "seed": 1}),
    (layers.LSTM, {"units": U}),
    (layers.LSTM, {"units": U, "return_sequences": True, "return_state": True}),
    (layers.LSTM, {"units": U, "dropout": 0.3, "recurrent_dropout": 0.2, "seed": 4}),
    (layers.LSTM, {"units": U, "unroll": True, "go_backwards": True}),
    (layers.LSTM, {"units": U, "use_cudnn": False, "zero_output_for_mask": True,
                   "return_sequences": True}),
]


@pytest.mark.parametrize(
    "cls,kwargs", CONTRACT, ids=[f"{c.__name__}-{i}" for i, (c, _) in enumerate(CONTRACT)]
)
def test_layer_contract(cls, kwargs):
    n_weights = 3
    check_layer(
        cls,
        kwargs,
        (B, T, F),
        expected_num_trainable_weights=n_weights,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
    )


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_rnn_over_each_cell_contract(cell):
    check_layer(
        layers.RNN,
        {"cell": getattr(layers, cell)(U), "return_sequences": True},
        (B, T, F),
        expected_output_shape=(B, T, U),
        expected_num_trainable_weights=3,
        supports_masking=True,
    )


# --- numerics against the NumPy loop ---------------------------------------------------


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
@pytest.mark.parametrize("go_backwards", [False, True])
def test_matches_reference_without_mask(kind, path, go_backwards, ref):
    x = _x()
    layer = _make(kind, return_sequences=True, return_state=True, go_backwards=go_backwards,
                  use_cudnn=path)
    out, *states = layer(x)
    want, want_states = ref.run(_step(ref, kind, layer), x, _zeros(kind),
                                go_backwards=go_backwards)
    assert_allclose(out, want, loose=10)
    for got, expected in zip(states, want_states):
        assert_allclose(got, expected, loose=10)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
@pytest.mark.parametrize("padding", ["right", "left", "scattered"])
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("zero_output", [False, True])
def test_matches_reference_with_mask(kind, path, padding, go_backwards, zero_output, ref):
    x = _x(1)
    mask = _masks()[padding]
    layer = _make(kind, return_sequences=True, return_state=True, go_backwards=go_backwards,
                  zero_output_for_mask=zero_output, use_cudnn=path)
    out, *states = layer(x, mask=mask)
    want, want_states = ref.run(
        _step(ref, kind, layer), x, _zeros(kind), mask=mask, go_backwards=go_backwards,
        zero_output_for_mask=zero_output,
    )
    assert_allclose(out, want, loose=10)
    for got, expected in zip(states, want_states):
        assert_allclose(got, expected, loose=10)
    last = _make(kind, go_backwards=go_backwards, zero_output_for_mask=zero_output,
                 use_cudnn=path)
    last.build(x.shape)
    last.set_weights(layer.get_weights())
    assert_allclose(last(x, mask=mask), want[:, -1], loose=10)


@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
def test_unroll_matches_the_loop(kind, ref):
    x = _x(2)
    mask = _masks()["left"]
    layer = _make(kind, return_sequences=True, unroll=True)
    out = layer(x, mask=mask)
    want, _ = ref.run(_step(ref, kind, layer), x, _zeros(kind), mask=mask)
    assert_allclose(out, want, loose=10)


@pytest.mark.parametrize("path", PATHS)
def test_gru_without_reset_after_and_without_bias(path, ref):
    x = _x(4)
    for reset_after in (True, False):
        layer = layers.GRU(U, reset_after=reset_after, use_bias=False, return_sequences=True,
                           use_cudnn=path)
        out = layer(x)
        kernel, recurrent, _ = ref.weights_of(layer)

        def step(a, s, kernel=kernel, recurrent=recurrent, reset_after=reset_after):
            return ref.gru_step(a, s, kernel, recurrent, None, reset_after)

        want, _ = ref.run(step, x, _zeros("GRU"))
        assert_allclose(out, want, loose=10)


def test_weight_names_shapes_and_gate_order():
    lstm, gru, gru_v1 = layers.LSTM(U), layers.GRU(U), layers.GRU(U, reset_after=False)
    for layer in (lstm, gru, gru_v1):
        layer.build((None, T, F))
    assert [w.path for w in lstm.weights] == [
        f"{lstm.name}/lstm_cell/kernel",
        f"{lstm.name}/lstm_cell/recurrent_kernel",
        f"{lstm.name}/lstm_cell/bias",
    ]
    assert [tuple(w.shape) for w in lstm.weights] == [(F, 4 * U), (U, 4 * U), (4 * U,)]
    assert [tuple(w.shape) for w in gru.weights] == [(F, 3 * U), (U, 3 * U), (2, 3 * U)]
    assert tuple(gru_v1.weights[2].shape) == (3 * U,)
    # unit_forget_bias: the forget gate (second block of i, f, c, o) starts at one.
    bias = ops.convert_to_numpy(lstm.cell.bias.value)
    np.testing.assert_array_equal(bias[U : 2 * U], 1.0)
    np.testing.assert_array_equal(np.delete(bias, np.s_[U : 2 * U]), 0.0)


def test_initial_state_eager_and_symbolic(ref):
    x = _x(5)
    rng = np.random.default_rng(6)
    h0, c0 = (rng.standard_normal((B, U)).astype("float32") for _ in range(2))
    layer = layers.LSTM(U, return_sequences=True)
    out = layer(x, initial_state=[h0, c0])
    want, _ = ref.run(_step(ref, "LSTM", layer), x, [h0, c0])
    assert_allclose(out, want, loose=10)

    seq = layers.Input((T, F))
    h_in, c_in = layers.Input((U,)), layers.Input((U,))
    inner = layers.LSTM(U, return_sequences=True)
    model = lamina.Model([seq, h_in, c_in], inner(seq, initial_state=[h_in, c_in]))
    inner.set_weights(layer.get_weights())
    assert_allclose(model([x, h0, c0]), want, loose=10)


def test_stateful_carries_states_across_batches(ref):
    x1, x2 = _x(7), _x(8)
    layer = layers.GRU(U, stateful=True, return_sequences=True)
    out1 = layer(x1)
    out2 = layer(x2)
    step = _step(ref, "GRU", layer)
    want1, states = ref.run(step, x1, _zeros("GRU"))
    want2, _ = ref.run(step, x2, states)
    assert_allclose(out1, want1, loose=10)
    assert_allclose(out2, want2, loose=10)
    assert len(layer.get_weights()) == 4  # kernel, recurrent kernel, bias, the state
    assert len(layer.own_variables) == 0  # the state is not saved
    layer.reset_state()
    assert_allclose(layer(x1), want1, loose=10)
    layer.reset_states()
    np.testing.assert_array_equal(ops.convert_to_numpy(layer.states[0].value), 0.0)


def test_stateful_needs_a_fixed_batch_size():
    with pytest.raises(ValueError, match="fixed batch size"):
        layers.LSTM(U, stateful=True)(layers.Input((T, F)))
    layer = layers.LSTM(U, stateful=True)
    layer(_x())
    with pytest.raises(ValueError, match="batches of 3 samples"):
        layer(_x(shape=(2, T, F)))


def test_stateful_model_fit_keeps_states():
    inputs = layers.Input(batch_shape=(B, T, F))
    layer = layers.LSTM(U, stateful=True)
    model = lamina.Model(inputs, layers.Dense(1)(layer(inputs)))
    if not lamina.backend.current().supports(lamina.backend.Capability.TRAINING):
        model.predict(_x(), batch_size=B, verbose=0)
    else:
        model.compile(optimizer="sgd", loss="mse")
        model.fit(_x(), np.zeros((B, 1)), batch_size=B, epochs=1, verbose=0)
    state = ops.convert_to_numpy(layer.states[0].value)
    assert np.abs(state).sum() > 0


def test_dropout_uses_one_mask_per_sequence():
    # Identical steps and no recurrence: with one mask per sequence every step's output is
    # the same; a mask drawn per step would make them differ.
    x = np.repeat(_x(9, (B, 1, F)), T, axis=1)
    layer = layers.SimpleRNN(U, dropout=0.5, recurrent_initializer="zeros",
                             return_sequences=True, seed=3)
    out = ops.convert_to_numpy(layer(x, training=True))
    np.testing.assert_allclose(out, np.repeat(out[:, :1], T, axis=1), rtol=1e-6)
    clean = ops.convert_to_numpy(layer(x, training=False))
    assert not np.allclose(out, clean)


@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
def test_recurrent_dropout_only_in_training(kind):
    x = _x(10)
    layer = _make(kind, recurrent_dropout=0.5, seed=2)
    a = ops.convert_to_numpy(layer(x, training=False))
    b = ops.convert_to_numpy(layer(x, training=False))
    c = ops.convert_to_numpy(layer(x, training=True))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_masks_flow_from_embedding_and_masking(ref):
    ids = np.array([[3, 5, 2, 0, 0, 0], [1, 0, 0, 0, 0, 0], [4, 4, 4, 4, 4, 1]], "int32")
    inputs = layers.Input((T,), dtype="int32")
    embedded = layers.Embedding(8, F, mask_zero=True)(inputs)
    lstm = layers.LSTM(U, return_sequences=True)
    model = lamina.Model(inputs, lstm(embedded))
    table = ops.convert_to_numpy(model.layers[1].embeddings)
    want, _ = ref.run(_step(ref, "LSTM", lstm), table[ids], _zeros("LSTM"), mask=ids != 0)
    assert_allclose(model(ids), want, loose=10)

    x = table[ids].copy()
    inputs = layers.Input((T, F))
    gru = layers.GRU(U)
    model = lamina.Model(inputs, gru(layers.Masking(0.0)(inputs)))
    x[ids == 0] = 0.0
    want, _ = ref.run(_step(ref, "GRU", gru), x, _zeros("GRU"), mask=ids != 0)
    assert_allclose(model(x), want[:, -1], loose=10)


def test_config_round_trip_keeps_keras_keys():
    layer = layers.LSTM(U, dropout=0.1, go_backwards=True, use_cudnn=False)
    config = layer.get_config()
    for key in ("units", "activation", "recurrent_activation", "unit_forget_bias", "dropout",
                "recurrent_dropout", "seed", "return_sequences", "return_state",
                "go_backwards", "stateful", "unroll", "zero_output_for_mask"):
        assert key in config
    assert "cell" not in config and "use_cudnn" not in config
    again = layers.LSTM.from_config(config)
    assert again.get_config() == config
    assert again.units == U and again.go_backwards


def test_argument_errors():
    with pytest.raises(ValueError, match="use_cudnn"):
        layers.LSTM(U, use_cudnn="yes")
    with pytest.raises(ValueError, match="units"):
        layers.GRU(0)
    with pytest.raises(ValueError, match="cell"):
        layers.RNN(layers.Dense(3))
    with pytest.raises(ValueError, match="unroll"):
        layers.LSTM(U, unroll=True)(layers.Input((None, F)))


def test_use_cudnn_true_refuses_what_the_kernel_cannot_do():
    layer = layers.LSTM(U, activation="relu", use_cudnn=True)
    with pytest.raises(ValueError, match="use_cudnn"):
        layer(_x())
