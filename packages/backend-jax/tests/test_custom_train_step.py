"""A JAX `train_step` override written as in Keras 3's guide: stateless, over explicit state.

The trainer hands `train_step(state, data)` the tuple ``(trainable, non_trainable,
optimizer, metrics)`` of variable values (metrics in `model.metrics` order) and expects
``(logs, new_state)`` back.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.testing import assert_trains_alike

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-1.0], [2.0]], "float32")).astype("float32")


class StatelessModel(lamina.Sequential):
    def compute_loss_and_updates(self, trainable, non_trainable, x, y, training=False):
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x,
                                                    training=training)
        loss = self.compute_loss(x, y, y_pred)
        return loss, (y_pred, non_trainable)

    def train_step(self, state, data):
        trainable, non_trainable, optimizer_vars, metrics_vars = state
        x, y = data
        grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
        (loss, (y_pred, non_trainable)), grads = grad_fn(
            trainable, non_trainable, x, y, training=True
        )
        trainable, optimizer_vars = self.optimizer.stateless_apply(
            optimizer_vars, grads, trainable
        )
        new_metrics_vars, logs = [], {}
        for metric in self.metrics:
            start = len(new_metrics_vars)
            own = metrics_vars[start:start + len(metric.variables)]
            if metric.name == "loss":
                own = metric.stateless_update_state(own, loss)
            else:
                own = metric.stateless_update_state(own, y, y_pred)
            logs[metric.name] = metric.stateless_result(own)
            new_metrics_vars += own
        return logs, (trainable, non_trainable, optimizer_vars, new_metrics_vars)


def _pair(model_cls, seed=0):
    lamina.utils.set_random_seed(seed)
    model = model_cls([layers.Input((3,)), layers.Dense(4), layers.BatchNormalization(),
                       layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


@pytest.mark.parametrize("jit_compile", [True, False])
def test_stateless_train_step_matches_the_built_in_step(jit_compile):
    custom = _pair(StatelessModel)
    reference = _pair(lamina.Sequential)
    custom.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"],
                   jit_compile=jit_compile)
    assert set(assert_trains_alike(custom, reference, X, Y)) == {"loss", "mae"}
    # the BatchNormalization moving statistics came back through `non_trainable`
    moving_mean = custom.layers[1].moving_mean.numpy()
    assert np.abs(moving_mean).max() > 0
    assert int(custom.optimizer.iterations.numpy()) == 8


def test_stateless_train_step_with_train_on_batch_and_evaluate():
    model = _pair(StatelessModel)
    before = model.evaluate(X, Y, verbose=0, return_dict=True)["loss"]
    logs = model.train_on_batch(X, Y, return_dict=True)
    assert list(logs) == ["loss", "mae"]
    # batch statistics in training mode: close to, not equal to, the inference loss
    np.testing.assert_allclose(logs["loss"], before, rtol=0.05)
    assert model.evaluate(X, Y, verbose=0, return_dict=True)["loss"] < before
