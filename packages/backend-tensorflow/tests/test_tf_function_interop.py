"""A Lamina model inside TensorFlow's own tools: a user's `tf.function` and SavedModel."""

from __future__ import annotations

import time

import numpy as np
import pytest
import tensorflow as tf

import lamina
from lamina import layers
from lamina_tensorflow.autograph import PACKAGES, skip_lamina_in_autograph
from lamina_tensorflow.layer import serving_function

RNG = np.random.default_rng(0)


def _mlp():
    return lamina.Sequential(
        [
            lamina.Input((8,), name="features"),
            layers.Dense(16, activation="relu"),
            layers.Dropout(0.5, seed=1),
            layers.BatchNormalization(),
            layers.Dense(1),
        ]
    )


def _first_trace_seconds(model, x, autograph):
    @tf.function(autograph=autograph)
    def step(x):
        return model(x, training=True)

    start = time.perf_counter()
    step(x)
    return time.perf_counter() - start


def test_autograph_leaves_lamina_code_alone():
    # AutoGraph once converted all of Lamina's Python on the way into a model: the first
    # trace took 7.5 s and more against 0.07 s without it (conversions are cached, so later
    # traces cost less). With Lamina left unconverted, the first trace with AutoGraph on
    # costs about what one without it does; the bound is loose for busy CI machines.
    x = tf.constant(RNG.random((4, 8)).astype("float32"))
    _first_trace_seconds(_mlp(), x, autograph=False)  # warm TensorFlow up first
    off = min(_first_trace_seconds(_mlp(), x, autograph=False) for _ in range(2))
    on = _first_trace_seconds(_mlp(), x, autograph=True)
    assert on < 3 * off + 1.0, f"autograph trace {on:.2f}s vs {off:.2f}s without"


def test_the_autograph_rule_is_added_once():
    from tensorflow.python.autograph.core import config

    assert skip_lamina_in_autograph()  # again: the rules are not repeated
    assert skip_lamina_in_autograph()
    for name in PACKAGES:
        assert sum(rule.matches(name) for rule in config.CONVERSION_RULES) == 1


def test_users_autograph_function_matches_an_eager_call():
    model = _mlp()
    x = RNG.random((4, 8)).astype("float32")
    model(x)

    @tf.function
    def infer(x):
        total = tf.constant(0.0)
        for row in tf.range(tf.shape(x)[0]):  # the user's own code is still converted
            total += tf.reduce_sum(x[row])
        return model(x, training=False), total

    out, total = infer(tf.constant(x))
    np.testing.assert_allclose(out.numpy(), model(x, training=False).numpy(), rtol=1e-6)
    np.testing.assert_allclose(total.numpy(), x.sum(), rtol=1e-5)


def _saved(model, tmp_path):
    path = str(tmp_path / "saved")
    tf.saved_model.save(model, path)
    return tf.saved_model.load(path)


def test_saved_model_serves_the_model(tmp_path):
    model = _mlp()
    model.compile("sgd", "mse")
    x = RNG.random((6, 8)).astype("float32")
    model.fit(x, RNG.random((6, 1)).astype("float32"), batch_size=4, verbose=0)
    loaded = _saved(model, tmp_path)
    serve = loaded.signatures["serving_default"]
    spec = serve.structured_input_signature[1]["features"]
    assert spec.shape.as_list() == [None, 8] and spec.dtype == tf.float32
    expected = model.predict(x, verbose=0)
    # Two graphs of the same float32 math may sum in another order: a few ulps apart.
    np.testing.assert_allclose(serve(features=tf.constant(x))["output_0"].numpy(), expected,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(loaded(tf.constant(x[:5])).numpy(), expected[:5], rtol=1e-6,
                               atol=1e-7)


def test_saved_model_of_a_model_with_named_inputs(tmp_path):
    a = lamina.Input((3,), name="a")
    b = lamina.Input((2,), name="b")
    model = lamina.Model({"a": a, "b": b}, layers.Dense(2)(layers.Concatenate()([a, b])))
    xa = RNG.random((4, 3)).astype("float32")
    xb = RNG.random((4, 2)).astype("float32")
    loaded = _saved(model, tmp_path)
    out = loaded.signatures["serving_default"](a=tf.constant(xa), b=tf.constant(xb))
    np.testing.assert_allclose(
        out["output_0"].numpy(), model.predict({"a": xa, "b": xb}, verbose=0), rtol=1e-6
    )


class Scaled(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(3)

    def call(self, x, training=None):
        return self.dense(x) * 2.0


def test_saved_model_of_a_built_subclassed_model(tmp_path):
    model = Scaled()
    x = RNG.random((2, 5)).astype("float32")
    model(x)
    loaded = _saved(model, tmp_path)
    out = loaded.signatures["serving_default"](tf.constant(x))["output_0"]
    np.testing.assert_allclose(out.numpy(), model.predict(x, verbose=0), rtol=1e-6)
    assert len(loaded.variables) == 2


def test_no_serving_function_without_known_inputs():
    assert serving_function(Scaled()) is None  # never built: nothing gives its inputs
    assert serving_function(layers.Dense(2)) is None  # a layer, not a model
    model = _mlp()
    assert serving_function(model) is serving_function(model)  # one per model


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_serving_signature_keeps_the_input_dtype(dtype, tmp_path):
    inputs = lamina.Input((4,), dtype=dtype, name="ids")
    model = lamina.Model(inputs, layers.Embedding(10, 2)(inputs) if dtype == "int32" else
                         layers.Dense(2)(inputs))
    loaded = _saved(model, tmp_path)
    spec = loaded.signatures["serving_default"].structured_input_signature[1]["ids"]
    assert spec.dtype == tf.as_dtype(dtype)
