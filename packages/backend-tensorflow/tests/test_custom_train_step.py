"""A TensorFlow `train_step` override written as in Keras 3's guide, with `tf.GradientTape`."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import lamina
from lamina import layers
from lamina.testing import assert_trains_alike

RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-1.0], [2.0]], "float32")).astype("float32")


class TapeModel(lamina.Sequential):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _model(cls, **compile_kwargs):
    lamina.utils.set_random_seed(0)
    model = cls([layers.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"],
                  **compile_kwargs)
    return model


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_gradient_tape_train_step_matches_the_built_in_step(run_eagerly):
    custom = _model(TapeModel, run_eagerly=run_eagerly)
    reference = _model(lamina.Sequential)
    assert set(assert_trains_alike(custom, reference, X, Y)) == {"loss", "mae"}
