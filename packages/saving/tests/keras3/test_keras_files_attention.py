"""Attention, activation and Transformer models in `.keras` and `.weights.h5` files between
real Keras 3 and Lamina, both directions (the helpers and tolerances of
`test_keras_files.py`)."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import lamina  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "lamina_keras_files_helpers", pathlib.Path(__file__).with_name("test_keras_files.py")
)
assert _spec is not None and _spec.loader is not None
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)
randomize, assert_same_model = _helpers.randomize, _helpers.assert_same_model


def activations(K):
    return K.Sequential([
        K.Input((4, 6)),
        K.layers.ReLU(max_value=2.0, negative_slope=0.1, threshold=0.2),
        K.layers.Dense(6),
        K.layers.LeakyReLU(negative_slope=0.2),
        K.layers.PReLU(shared_axes=[1]),
        K.layers.ELU(alpha=0.5),
        K.layers.Softmax(axis=-1),
        K.layers.Flatten(),
        K.layers.Dense(3),
    ])


def transformer(K):
    """Token embedding with padding, the Luong and Bahdanau layers, then an encoder block
    (gated attention, residual, normalization) and grouped-query attention."""
    ids = K.Input((6,), dtype="int32")
    x = K.layers.Embedding(20, 8, mask_zero=True)(ids)
    x = K.layers.Attention(use_scale=True, score_mode="concat")([x, x])
    x = K.layers.AdditiveAttention()([x, x])
    attended = K.layers.MultiHeadAttention(num_heads=2, key_dim=4, use_gate=True)(x, x)
    x = K.layers.LayerNormalization()(K.layers.Add()([x, attended]))
    grouped = K.layers.GroupQueryAttention(
        head_dim=4, num_query_heads=4, num_key_value_heads=2, sliding_window=3
    )(x, x, use_causal_mask=True)
    x = K.layers.Dense(8, activation="relu")(K.layers.Add()([x, grouped]))
    pooled = K.layers.GlobalAveragePooling1D()(x)
    return K.Model(ids, K.layers.Dense(2)(pooled))


def several_axes(K):
    inputs = K.Input((3, 4, 5))
    x = K.layers.MultiHeadAttention(
        num_heads=2, key_dim=3, attention_axes=(1, 2), output_shape=(6,), use_bias=False
    )(inputs, inputs)
    return K.Model(inputs, K.layers.GlobalAveragePooling2D()(x))


def reversible(K):
    ids = K.Input((5,), dtype="int32")
    emb = K.layers.ReversibleEmbedding(12, 4, tie_weights=False)
    return K.Model(ids, emb(emb(ids), reverse=True))


MODELS = [activations, transformer, several_axes, reversible]


def inputs_for(build, model):
    if build in (transformer, reversible):
        x = np.random.default_rng(1).integers(1, 12, size=(5, *model.inputs[0].shape[1:]))
        if build is transformer:
            x[:, 4:] = 0  # padding the Embedding masks
        return x.astype("int32")
    shape = tuple(model.inputs[0].shape)
    return np.random.default_rng(1).normal(size=(5, *shape[1:])).astype("float32")


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_archive_loads_in_lamina(tmp_path, build):
    source = build(keras)
    randomize(source)
    source.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_weights_load_into_lamina_model(tmp_path, build):
    source = build(keras)
    randomize(source)
    source.save_weights(tmp_path / "k.weights.h5")
    target = build(lamina)
    status = target.load_weights(tmp_path / "k.weights.h5")
    assert status.pending == []
    assert_same_model(target, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_archive_loads_in_keras(tmp_path, build):
    source = build(lamina)
    randomize(source)
    source.save(tmp_path / "l.keras")
    loaded = keras.saving.load_model(tmp_path / "l.keras")
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_weights_load_into_keras_model(tmp_path, build):
    source = build(lamina)
    randomize(source)
    source.save_weights(tmp_path / "l.weights.h5")
    target = build(keras)
    target.load_weights(tmp_path / "l.weights.h5")
    assert_same_model(target, source, inputs_for(build, source))
