"""Optimizer state, compile config, sharded weights and `safe_mode` between Keras 3 and
Lamina.

A model trained a few steps by one framework and saved is loaded by the other, whose
optimizer slots must hold the same values under the same names; one more identical step
on both must then give the same weights (Lamina's float32 tolerance, rtol 1e-5 and atol
1e-6, loosened 10x for the step, which compounds rounding). Skipped without Keras.
"""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina.testing import assert_allclose  # noqa: E402

X = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
Y = np.random.default_rng(1).normal(size=(16, 2)).astype("float32")

OPTIMIZERS = {
    "adam": {},
    "adam_amsgrad": {"amsgrad": True},
    "adamw": {"weight_decay": 0.01},
    "nadam": {},
    "adamax": {},
    "adadelta": {},
    "adagrad": {},
    "ftrl": {},
    "lamb": {},
    "lion": {},
    "rmsprop": {"momentum": 0.9, "centered": True},
    "sgd": {"momentum": 0.9},
}


def make_optimizer(K, key):
    name = key.split("_")[0]
    classes = {"adam": "Adam", "adamw": "AdamW", "nadam": "Nadam", "adamax": "Adamax",
               "adadelta": "Adadelta", "adagrad": "Adagrad", "ftrl": "Ftrl", "lamb": "Lamb",
               "lion": "Lion", "rmsprop": "RMSprop", "sgd": "SGD"}
    return getattr(K.optimizers, classes[name])(learning_rate=0.05, **OPTIMIZERS[key])


def make_model(K, key):
    model = K.Sequential([K.Input((4,)), K.layers.Dense(3, activation="tanh"),
                          K.layers.BatchNormalization(), K.layers.Dense(2)])
    model.compile(optimizer=make_optimizer(K, key), loss="mse", metrics=["mae"])
    return model


def state(model):
    """Optimizer variables keyed by name, slots by (model variable index, slot kind).

    Both frameworks name a slot ``<variable path with _>_<kind>``; the paths themselves
    may differ (Keras prefixes some with the model's name), so the index is the key.
    """
    bases = {v.path.replace("/", "_"): i for i, v in enumerate(model.trainable_variables)}
    out = {}
    for v in model.optimizer.variables:
        name = v.path.split("/")[-1]
        key = "u_product" if name.startswith("variable") else name  # Keras' unnamed Nadam state
        matches = [b for b in bases if name.startswith(f"{b}_")]
        if matches:
            base = max(matches, key=len)
            key = (bases[base], name[len(base) + 1:])
        out[key] = np.array(v.numpy())
    return out


def assert_same_state(loaded, source):
    got, want = state(loaded), state(source)
    assert sorted(got, key=str) == sorted(want, key=str)
    for name, value in want.items():
        np.testing.assert_array_equal(got[name].astype(value.dtype), value, err_msg=str(name))


def assert_next_step_alike(loaded, source):
    loaded.train_on_batch(X, Y)
    source.train_on_batch(X, Y)
    for got, want in zip(loaded.get_weights(), source.get_weights()):
        assert_allclose(np.asarray(got), np.asarray(want), dtype="float32", loose=10)


def trained_and_reloaded(tmp_path, key, direction):
    """A model trained 4 steps by one framework, and its `.keras` file loaded by the other."""
    source_k, target_k = (keras, lamina) if direction == "keras_to_lamina" else (lamina, keras)
    source = make_model(source_k, key)
    source.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    source.save(tmp_path / "m.keras")
    return source, target_k.saving.load_model(tmp_path / "m.keras")


DIRECTIONS = ["keras_to_lamina", "lamina_to_keras"]


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_optimizer_state_and_compile_config_move_between_frameworks(tmp_path, key, direction):
    source, loaded = trained_and_reloaded(tmp_path, key, direction)
    assert type(loaded.optimizer).__name__ == type(source.optimizer).__name__
    config = loaded.get_compile_config()
    assert (config["loss"], config["metrics"]) == ("mse", ["mae"])
    assert_same_state(loaded, source)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_training_goes_on_alike_after_the_move(tmp_path, key, direction):
    source, loaded = trained_and_reloaded(tmp_path, key, direction)
    assert_next_step_alike(loaded, source)


def test_keras_optimizer_state_in_weights_file_loads_into_compiled_lamina_model(tmp_path):
    source = make_model(keras, "adam")
    source.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    source.save_weights(tmp_path / "k.weights.h5")
    target = make_model(lamina, "adam")
    target.load_weights(tmp_path / "k.weights.h5")
    assert_same_state(target, source)
    assert_next_step_alike(target, source)


def test_keras_sharded_weights_load_into_lamina(tmp_path):
    source = make_model(keras, "adam")
    source.fit(X, Y, batch_size=8, epochs=1, verbose=0)
    index = tmp_path / "k.weights.json"
    source.save_weights(index, max_shard_size=1e-7)
    assert len(list(tmp_path.glob("k_*.weights.h5"))) > 2  # groups split across shards
    target = make_model(lamina, "adam")
    target.load_weights(index)
    for got, want in zip(target.get_weights(), source.get_weights()):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert_same_state(target, source)


def test_keras_lambda_is_refused_in_safe_mode(tmp_path):
    inputs = keras.Input((4,))
    source = keras.Model(inputs, keras.layers.Lambda(lambda x: x * 2.0)(inputs))
    source.save(tmp_path / "lambda.keras")
    with pytest.raises(ValueError, match="safe_mode"):
        lamina.saving.load_model(tmp_path / "lambda.keras")
