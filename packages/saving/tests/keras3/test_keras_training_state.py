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
from lamina.backend import Capability  # noqa: E402
from lamina.testing import assert_allclose  # noqa: E402

TRAINS = pytest.mark.requires(Capability.TRAINING)  # Lamina trains a model

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
    "adafactor": {},
    "muon": {},
    "lossscale_adam": {},
}


def make_optimizer(K, key):
    name = key.split("_")[0]
    classes = {"adam": "Adam", "adamw": "AdamW", "nadam": "Nadam", "adamax": "Adamax",
               "adadelta": "Adadelta", "adagrad": "Adagrad", "ftrl": "Ftrl", "lamb": "Lamb",
               "lion": "Lion", "rmsprop": "RMSprop", "sgd": "SGD", "adafactor": "Adafactor",
               "muon": "Muon"}
    if name == "lossscale":
        return K.optimizers.LossScaleOptimizer(make_optimizer(K, "adam"))
    return getattr(K.optimizers, classes[name])(learning_rate=0.05, **OPTIMIZERS[key])


def make_model(K, key):
    model = K.Sequential([K.Input((4,)), K.layers.Dense(3, activation="tanh"),
                          K.layers.BatchNormalization(), K.layers.Dense(2)])
    model.compile(optimizer=make_optimizer(K, key), loss="mse", metrics=["mae"])
    return model


def state(model):
    """Optimizer variables keyed by name, slots by (model variable index, slot kind)."""
    return optimizer_state(model.optimizer, model.trainable_variables)


def optimizer_state(optimizer, trainable):
    """`state` of one optimizer; a loss-scale wrapper's own variables keyed
    ``("wrapper", name)`` beside its inner optimizer's.

    Both frameworks name a slot ``<variable path with _>_<kind>``; the paths themselves
    may differ (Keras prefixes some with the model's name), so the index is the key.
    Keras names Adafactor's factored slots after the variable alone ("kernel"), so there
    the position says which: three slots per variable after the two counters.
    """
    if type(optimizer).__name__ == "LossScaleOptimizer":
        inner = optimizer.inner_optimizer
        own = optimizer.variables[: len(optimizer.variables) - len(inner.variables)]
        return {**optimizer_state(inner, trainable),
                **{("wrapper", v.name): np.array(v.numpy()) for v in own}}
    bases = {v.path.replace("/", "_"): i for i, v in enumerate(trainable)}
    keras_adafactor = is_keras(optimizer) and type(optimizer).__name__ == "Adafactor"
    out = {}
    for position, v in enumerate(optimizer.variables):
        name = v.path.split("/")[-1]
        key = "u_product" if name.startswith("variable") else name  # Keras' unnamed Nadam state
        matches = [b for b in bases if name.startswith(f"{b}_")]
        if keras_adafactor and position >= 2:
            index, kind = divmod(position - 2, 3)
            key = (index, ("r", "c", "velocity")[kind])
        elif matches:
            base = max(matches, key=len)
            key = (bases[base], name[len(base) + 1:])
        assert key not in out, key
        out[key] = np.array(v.numpy())
    return out


def is_keras(obj):
    return type(obj).__module__.startswith("keras")


def lamina_view(model):
    """`state` of a Keras model less what Lamina keeps no variable for, each checked.

    Keras' loss-scale wrapper keeps an unused counter and rate (0). Its Adafactor keeps
    unused integer 0s as the row and column averages of variables of rank < 2, and a
    full second moment for larger ones that is, after every step, the row averages over
    their mean times the column averages.
    """
    got = state(model)
    if not is_keras(model):
        return got
    for name in ("iteration", "learning_rate"):
        value = got.pop(("wrapper", name), None)
        assert value is None or value == 0, (name, value)
    if type(model.optimizer).__name__ == "Adafactor":
        for i, v in enumerate(model.trainable_variables):
            if len(v.shape) < 2:
                assert got.pop((i, "r")) == 0 and got.pop((i, "c")) == 0
                continue
            r, c = got[(i, "r")], got[(i, "c")]
            full = (r / r.mean(-1, keepdims=True))[..., None] * c[..., None, :]
            assert_allclose(got.pop((i, "velocity")), full, dtype="float32")
    return got


def assert_same_state(loaded, source):
    got, want = lamina_view(loaded), lamina_view(source)
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


@TRAINS
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_optimizer_state_and_compile_config_move_between_frameworks(tmp_path, key, direction):
    source, loaded = trained_and_reloaded(tmp_path, key, direction)
    assert type(loaded.optimizer).__name__ == type(source.optimizer).__name__
    config = loaded.get_compile_config()
    assert (config["loss"], config["metrics"]) == ("mse", ["mae"])
    assert_same_state(loaded, source)


@TRAINS
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
def test_training_goes_on_alike_after_the_move(tmp_path, key, direction):
    source, loaded = trained_and_reloaded(tmp_path, key, direction)
    assert_next_step_alike(loaded, source)


WEIGHTS_FILE_KEYS = ["adam", "adafactor", "muon", "lossscale_adam"]


@TRAINS
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("key", WEIGHTS_FILE_KEYS)
def test_optimizer_state_in_weights_file_loads_into_compiled_model(tmp_path, key, direction):
    source_k, target_k = (keras, lamina) if direction == "keras_to_lamina" else (lamina, keras)
    source = make_model(source_k, key)
    source.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    source.save_weights(tmp_path / "m.weights.h5")
    target = make_model(target_k, key)
    target.optimizer.build(target.trainable_variables)  # Keras loads no state otherwise
    target.load_weights(tmp_path / "m.weights.h5")
    assert_same_state(target, source)
    assert_next_step_alike(target, source)


@TRAINS
@pytest.mark.parametrize("key", WEIGHTS_FILE_KEYS)
def test_optimizer_state_in_keras_layout_waits_for_an_unbuilt_lamina_model(tmp_path, key):
    """The optimizer's layout in the file is learnt from a stand-in built for as many
    variables as the file's count implies, before the model has any."""
    def make(built):
        layers = [lamina.layers.Dense(3, activation="tanh"), lamina.layers.Dense(2)]
        model = lamina.Sequential(([lamina.Input((4,))] if built else []) + layers)
        model.compile(optimizer=make_optimizer(lamina, key), loss="mse")
        return model

    source = make(built=True)
    source.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    source.save_weights(tmp_path / "m.weights.h5")
    target = make(built=False)
    status = target.load_weights(tmp_path / "m.weights.h5")
    assert "optimizer" in status.pending
    target.train_on_batch(X, Y)  # builds the model, then the optimizer, then restores
    source.train_on_batch(X, Y)
    assert status.pending == []
    for got, want in zip(target.get_weights(), source.get_weights()):
        assert_allclose(np.asarray(got), np.asarray(want), dtype="float32")


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
