"""Metrics that make their variables from the first batch's shapes work in compiled steps.

`R2Score` sizes its sums by the number of outputs it first sees. Compiled steps (a jitted
JAX step, a `tf.function`) must not create variables, so the trainer lets every compiled
metric see the first batch eagerly before any step is traced, then undoes that update.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability
from lamina.backend.registry import current

RNG = np.random.default_rng(3)
X = RNG.normal(size=(50, 4)).astype("float32")  # batch 16: a partial last batch of 2
Y = np.stack([X @ [1.0, -2.0, 0.5, 0.0], X @ [0.0, 1.0, 1.0, 3.0]], axis=1).astype("float32")


def r2_reference(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    residual = ((y_true - y_pred) ** 2).sum(axis=0)
    total = ((y_true - y_true.mean(axis=0)) ** 2).sum(axis=0)
    return float((1.0 - residual / total).mean())


def compiled_model() -> lamina.Model:
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(2)])
    model.compile("adam", "mse", metrics=[lamina.metrics.R2Score(name="r2")])
    return model


def test_r2_score_in_compiled_evaluate_matches_reference() -> None:
    model = compiled_model()
    logs = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
    expected = r2_reference(Y, model.predict(X, verbose=0))
    np.testing.assert_allclose(logs["r2"], expected, rtol=1e-5, atol=1e-5)


def test_r2_score_in_fit_is_finite_from_the_first_epoch() -> None:
    if not current().supports(Capability.TRAINING):
        pytest.skip("this backend cannot train")
    model = compiled_model()
    history = model.fit(X, Y, batch_size=16, epochs=3, verbose=0, validation_data=(X, Y))
    assert np.isfinite(history.history["r2"]).all(), history.history
    expected = r2_reference(Y, model.predict(X, verbose=0))
    np.testing.assert_allclose(history.history["val_r2"][-1], expected, rtol=1e-5, atol=1e-5)
