"""A user's `test_step(state, data)` and `predict_step(state, data)`, written as Keras 3
users write them on JAX, run in the jitted `evaluate` and `predict`."""

from __future__ import annotations

import numpy as np

import lamina
from lamina import layers

X = np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3)
Y = X.sum(axis=1, keepdims=True)


class ExplicitState(lamina.Model):
    @property
    def metrics(self):
        return [self.test_tracker]

    def test_step(self, state, data):
        trainable, non_trainable, metrics_variables = state
        x, y = data
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x)
        loss = lamina.ops.mean((y_pred - y) ** 2)
        tracker = self.test_tracker
        metrics_variables = tracker.stateless_update_state(metrics_variables, loss)
        logs = {"loss": tracker.stateless_result(metrics_variables)}
        return logs, (trainable, non_trainable, metrics_variables)

    def predict_step(self, state, data):
        trainable, non_trainable = state
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, data)
        return 2.0 * y_pred, non_trainable


def _models():
    inputs = layers.Input((3,))
    outputs = layers.Dense(1, name="d")(inputs)
    plain = lamina.Model(inputs, outputs)
    custom = ExplicitState(inputs, outputs)
    custom.test_tracker = lamina.metrics.Mean(name="loss")
    for model in (plain, custom):
        model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    return plain, custom


def test_explicit_state_steps_run_jitted_and_match_the_built_in_steps():
    plain, custom = _models()
    expected = plain.evaluate(X, Y, batch_size=4, verbose=0)
    got = custom.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True)["loss"]
    # The built-in loss averages per batch; the user's tracker averages batch means.
    batches = [slice(0, 4), slice(4, 8), slice(8, 10)]
    p = plain.predict(X, verbose=0)
    reference = np.mean([np.mean((p[b] - Y[b]) ** 2) for b in batches])
    np.testing.assert_allclose(got, reference, rtol=1e-5)
    assert np.isfinite(expected)
    np.testing.assert_allclose(custom.predict(X, batch_size=4, verbose=0), 2.0 * p, rtol=1e-6)
