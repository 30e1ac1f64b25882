"""`model(x)`, `predict_on_batch` and one-batch `predict` through the cached compiled
forward (JAX, TensorFlow): equal to the plain path, invalidated by structure changes, and
refused where inference changes state."""

from __future__ import annotations

import types

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
X = RNG.normal(size=(8, 5)).astype("float32")


def _mlp() -> lamina.Sequential:
    lamina.utils.set_random_seed(1)
    return lamina.Sequential(
        [layers.Input((5,)), layers.Dense(6, activation="relu"), layers.Dense(3)]
    )


def _numpy_forward(model, x):
    h = x
    dense = [layer for layer in model.layers if isinstance(layer, layers.Dense)]
    for i, layer in enumerate(dense):
        w, b = (v.numpy() for v in layer.weights)
        h = h @ w + b
        if i < len(dense) - 1:
            h = np.maximum(h, 0.0)
    return h


def _cached(model) -> bool:
    """Whether the last call ran the compiled forward (backends that compile one)."""
    cache = model._forward_cache
    return cache is not None and cache.safe and bool(cache.functions)


def test_call_predict_on_batch_and_predict_match_numpy():
    model = _mlp()
    x = ops.convert_to_tensor(X)
    expected = _numpy_forward(model, X)
    for _ in range(2):  # the second call reuses the trace
        assert_allclose(model(x), expected)
        assert_allclose(model(x, training=False), expected)
    assert _cached(model) is model._compiles_forward
    np.testing.assert_allclose(model.predict_on_batch(X), expected, rtol=1e-6, atol=1e-6)
    as_float64 = model.predict_on_batch(X.astype("float64"))  # taken as float32, as fit does
    assert as_float64.dtype == np.float32
    np.testing.assert_allclose(as_float64, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(model.predict(X, verbose=0), expected, rtol=1e-6, atol=1e-6)
    many = RNG.normal(size=(70, 5)).astype("float32")  # three batches: the data adapter
    np.testing.assert_allclose(
        model.predict(many, verbose=0), _numpy_forward(model, many), rtol=1e-5, atol=1e-6
    )


def test_cache_follows_new_weights_and_new_layers():
    model = _mlp()
    x = ops.convert_to_tensor(X)
    model(x)
    model.set_weights([w + 1.0 for w in model.get_weights()])
    assert_allclose(model(x), _numpy_forward(model, X))
    model.add(layers.Dense(2))  # a new variable structure: the trace is rebuilt
    out = model(x)
    assert tuple(out.shape) == (8, 2)
    assert_allclose(out, _numpy_forward(model, X))
    assert _cached(model) is model._compiles_forward


class _Record(layers.Layer):
    """Records whether each run of its `call` is eager or traced (a Python side effect)."""

    def __init__(self, holder):
        super().__init__()
        self.holder = holder  # holder.model: the model, once made (not a tracked sublayer)
        self.runs = []

    def call(self, x):
        model = self.holder.model
        if model is not None:  # not the symbolic call that builds the model
            self.runs.append("eager" if model._concrete_input(x) else "trace")
        return x


@pytest.mark.parametrize("entry", ["call", "predict_on_batch"])
def test_every_call_of_a_signature_runs_its_one_trace(entry):
    holder = types.SimpleNamespace(model=None)
    record = _Record(holder)
    lamina.utils.set_random_seed(3)
    model = lamina.Sequential([layers.Input((5,)), layers.Dense(3), record])
    holder.model = model
    if not model._compiles_forward:
        pytest.skip("this backend runs the eager forward: nothing is compiled")
    w, b = (v.numpy() for v in model.layers[0].weights)

    def run(x):
        if entry == "call":
            return ops.convert_to_numpy(model(ops.convert_to_tensor(x)))
        return model.predict_on_batch(x)

    for x, runs in ((X, ["trace"]), (X[:3], ["trace"]), (X, [])):
        before = len(record.runs)
        outs = [run(x) for _ in range(3)]  # traced at the first call, then reused
        np.testing.assert_allclose(outs[0], x @ w + b, rtol=1e-5, atol=1e-6)
        for out in outs[1:]:  # the same function every time: the same bits
            np.testing.assert_array_equal(out, outs[0])
        assert record.runs[before:] == runs
    assert _cached(model)


class _CountCalls(layers.Layer):
    """Counts its inference calls in a variable (state changed in inference)."""

    def build(self, input_shape):
        self.calls = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, x):
        self.calls.assign(self.calls + 1.0)
        return x


class _Noise(layers.Layer):
    """Adds noise drawn with ``seed=None`` (the global seed state advances in inference)."""

    def call(self, x):
        return x + lamina.random.normal((1, 3))


@pytest.mark.parametrize("kind", ["state", "seed", "loss", "training"])
def test_calls_that_change_state_take_the_plain_path(kind):
    counter = _CountCalls()
    extra = {
        "state": counter,
        "seed": _Noise(),
        "loss": layers.Dense(3, activity_regularizer="l2"),
        "training": layers.Dropout(0.5),
    }[kind]
    lamina.utils.set_random_seed(2)
    model = lamina.Sequential([layers.Input((5,)), layers.Dense(3), extra])
    x = ops.convert_to_tensor(X)
    kwargs = {"training": True} if kind == "training" else {}
    outs = [ops.convert_to_numpy(model(x, **kwargs)) for _ in range(3)]
    assert not _cached(model)
    if kind == "state":
        assert float(counter.calls.numpy()) == 3.0  # every call counted, none traced away
        np.testing.assert_allclose(outs[2], outs[0], rtol=1e-6)
    elif kind == "loss":
        assert len(model.losses) == 1
        kernel = extra.kernel.numpy()
        h = X @ model.layers[0].kernel.numpy() + model.layers[0].bias.numpy()
        expected = 0.01 * np.sum((h @ kernel + extra.bias.numpy()) ** 2)
        np.testing.assert_allclose(
            float(ops.convert_to_numpy(model.losses[0])), expected, rtol=1e-5
        )
    else:  # a new draw at every call, none frozen into a trace
        assert not np.allclose(outs[0], outs[1]) and not np.allclose(outs[1], outs[2])


def test_subclassed_models_take_the_plain_path():
    class Doubler(lamina.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(2)

        def call(self, x):
            return self.dense(x) * 2.0

    model = Doubler()
    x = ops.convert_to_tensor(X)
    out = model(x)
    w, b = (v.numpy() for v in model.dense.weights)
    assert_allclose(out, (X @ w + b) * 2.0)
    assert model._forward_cache is None
