"""Recurrent models in `.keras` and `.weights.h5` files between real Keras 3 and Lamina.

The same checks as `test_keras_files.py` (bit-identical weights, equal predictions, both
directions) for the recurrent family: LSTM and GRU gate layouts (GRU with and without
`reset_after`), SimpleRNN, masks from `Embedding(mask_zero=True)`, `Bidirectional`,
`TimeDistributed`, stacked cells and ConvLSTM2D.
"""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import importlib.util  # noqa: E402
import pathlib  # noqa: E402

import lamina  # noqa: E402


def _shared_helpers():
    """`test_keras_files.py`'s helpers (tests are imported by path, not as a package)."""
    path = pathlib.Path(__file__).with_name("test_keras_files.py")
    spec = importlib.util.spec_from_file_location("lamina_keras3_file_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _shared_helpers()
RNG, assert_same_model, randomize = _helpers.RNG, _helpers.assert_same_model, _helpers.randomize


def lstm_gru(K):
    return K.Sequential([
        K.Input((7, 4)),
        K.layers.LSTM(5, return_sequences=True),
        K.layers.GRU(4, return_sequences=True, go_backwards=True),
        K.layers.GRU(3, reset_after=False),
        K.layers.Dense(2),
    ])


def masked(K):
    inputs = K.Input((7,), dtype="int32")
    x = K.layers.Embedding(20, 4, mask_zero=True)(inputs)
    x = K.layers.SimpleRNN(3, return_sequences=True)(x)
    x = K.layers.Bidirectional(K.layers.GRU(3, return_sequences=True))(x)
    x = K.layers.LSTM(3)(x)
    return K.Model(inputs, K.layers.Dense(2)(x))


def bidirectional(K):
    return K.Sequential([
        K.Input((6, 4)),
        K.layers.Bidirectional(K.layers.LSTM(3, return_sequences=True)),
        K.layers.Bidirectional(K.layers.GRU(3), merge_mode="sum"),
        K.layers.Dense(2),
    ])


def time_distributed(K):
    return K.Sequential([
        K.Input((5, 4)),
        K.layers.TimeDistributed(K.layers.Dense(3)),
        K.layers.SimpleRNN(2),
    ])


def stacked(K):
    cells = [K.layers.LSTMCell(3), K.layers.GRUCell(2)]
    return K.Sequential([K.Input((5, 4)), K.layers.RNN(cells), K.layers.Dense(2)])


def conv_lstm(K):
    return K.Sequential([
        K.Input((3, 6, 6, 2)),
        K.layers.ConvLSTM2D(3, 3, return_sequences=True),
        K.layers.ConvLSTM2D(2, 2),
        K.layers.Flatten(),
        K.layers.Dense(2),
    ])


MODELS = [lstm_gru, masked, bidirectional, time_distributed, stacked, conv_lstm]


def inputs_for(build, model):
    if build is masked:
        ids = RNG(1).integers(1, 20, size=(5, 7)).astype("int32")
        ids[0, 4:] = 0  # padding, skipped by the recurrent layers
        ids[3, 2:] = 0
        return ids
    shape = tuple(model.inputs[0].shape)
    return RNG(1).normal(size=(5, *shape[1:])).astype("float32")


def small(model, seed=0):
    """`randomize`, scaled down: recurrent weights near 1 saturate every gate."""
    randomize(model, seed)
    for v in model.weights:
        v.assign(np.asarray(v) * 0.5)


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_archive_loads_in_lamina(tmp_path, build):
    source = build(keras)
    small(source)
    source.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_weights_load_into_lamina_model(tmp_path, build):
    source = build(keras)
    small(source)
    source.save_weights(tmp_path / "k.weights.h5")
    target = build(lamina)
    status = target.load_weights(tmp_path / "k.weights.h5")
    assert status.pending == []
    assert_same_model(target, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_archive_loads_in_keras(tmp_path, build):
    source = build(lamina)
    small(source)
    source.save(tmp_path / "l.keras")
    loaded = keras.saving.load_model(tmp_path / "l.keras")
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_weights_load_into_keras_model(tmp_path, build):
    source = build(lamina)
    small(source)
    source.save_weights(tmp_path / "l.weights.h5")
    target = build(keras)
    target.load_weights(tmp_path / "l.weights.h5")
    assert_same_model(target, source, inputs_for(build, source))
