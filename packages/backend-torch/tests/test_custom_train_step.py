"""A torch `train_step` override written as in Keras 3's guide: zero_grad, backward, apply."""

from __future__ import annotations

import numpy as np
import torch

import lamina
from lamina import layers
from lamina.testing import assert_trains_alike

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-1.0], [2.0]], "float32")).astype("float32")


class TorchStepModel(lamina.Sequential):
    def train_step(self, data):
        x, y = data
        self.zero_grad()
        y_pred = self(x, training=True)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        loss.backward()
        trainable_weights = [v for v in self.trainable_weights]
        gradients = [v.value.grad for v in trainable_weights]
        with torch.no_grad():
            self.optimizer.apply(gradients, trainable_weights)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _model(cls):
    lamina.utils.set_random_seed(0)
    model = cls([layers.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def test_autograd_train_step_matches_the_built_in_step():
    custom, reference = _model(TorchStepModel), _model(lamina.Sequential)
    assert set(assert_trains_alike(custom, reference, X, Y)) == {"loss", "mae"}


def test_zero_grad_clears_gradients_between_steps():
    model = _model(TorchStepModel)
    model.train_on_batch(X[:8], Y[:8])
    first = [v.value.grad.clone() for v in model.trainable_weights]
    model.set_weights(_model(TorchStepModel).get_weights())
    model.train_on_batch(X[:8], Y[:8])
    for g, again in zip(first, [v.value.grad for v in model.trainable_weights]):
        torch.testing.assert_close(again, g)  # not accumulated onto the first step's
