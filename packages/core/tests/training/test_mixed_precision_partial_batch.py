"""`mixed_float16` training: a partial last batch, and the loss scale the step really uses.

On JAX the partial batch retraces the jitted step; the loss scale must come from the state
the step carries (not from a buffer captured at the first trace and donated since).
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability

pytestmark = pytest.mark.requires(Capability.TRAINING)

RNG = np.random.default_rng(2)
X = RNG.normal(size=(10, 3)).astype("float32")  # 10 samples, batches of 4: 4 + 4 + 2
Y = (X @ np.array([[1.0], [-1.0], [0.5]], "float32")).astype("float32")


@pytest.fixture
def mixed_float16():
    lamina.mixed_precision.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        lamina.mixed_precision.set_global_policy("float32")


def _model(optimizer):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(8), layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse", metrics=["mae"])
    return model


def test_fit_evaluate_predict_with_a_partial_last_batch(mixed_float16):
    model = _model("adam")
    assert isinstance(model.optimizer, lamina.optimizers.LossScaleOptimizer)
    history = model.fit(X, Y, batch_size=4, epochs=3, verbose=0)
    losses = history.history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]
    assert history.params["steps"] == 3
    logs = model.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True)
    assert np.isfinite(logs["loss"])
    assert model.predict(X, batch_size=4, verbose=0).shape == (10, 1)
    again = model.fit(X, Y, batch_size=4, epochs=1, verbose=0)  # reuses the traces
    assert np.isfinite(again.history["loss"][0])


def test_the_step_scales_the_loss_by_the_current_dynamic_scale(mixed_float16):
    # 2**40 overflows float16 gradients: steps are skipped and the scale halves until the
    # gradients fit. A step reading a stale scale would skip forever.
    optimizer = lamina.optimizers.LossScaleOptimizer(
        lamina.optimizers.SGD(0.01), initial_scale=2.0**40
    )
    model = _model(optimizer)
    before = [v.numpy() for v in model.trainable_variables]
    model.fit(X, Y, batch_size=4, epochs=12, verbose=0)  # 36 steps
    scale = float(optimizer.dynamic_scale.numpy())
    assert 2.0**4 <= scale < 2.0**20
    assert int(optimizer.iterations.numpy()) < 36  # the inner optimizer skipped the overflows
    assert any(not np.array_equal(b, v.numpy()) for b, v in zip(before, model.trainable_variables))
