"""The jitted step carries the global seed state even through a user's own `train_step`."""

from __future__ import annotations

import jax
import numpy as np

import lamina
from lamina import layers, ops
from lamina import random as lr
from lamina.random.seed_generator import global_seed_generator


class NoisyStateless(lamina.Sequential):
    """A Keras-3-guide `train_step` (stateless_call over explicit state) plus unseeded noise."""

    def train_step(self, state, data):
        trainable, non_trainable, optimizer_vars, metrics_vars = state
        x, y = data

        def loss_fn(tv, ntv):
            y_pred, ntv = self.stateless_call(tv, ntv, x, training=True)
            noise = lr.normal((1,))  # seed=None: drawn from the carried global state
            return ops.mean((y_pred - y) ** 2) + 0.0 * noise[0], (ntv, noise)

        (loss, (non_trainable, noise)), grads = jax.value_and_grad(loss_fn, has_aux=True)(
            trainable, non_trainable
        )
        trainable, optimizer_vars = self.optimizer.stateless_apply(optimizer_vars, grads, trainable)
        return {"loss": loss, "noise": noise[0]}, (
            trainable, non_trainable, optimizer_vars, metrics_vars
        )


class Collect(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.noise = []

    def on_train_batch_end(self, batch, logs=None):
        self.noise.append(float(logs["noise"]))


def test_custom_train_step_draws_anew_each_step_and_the_state_is_written_back():
    lamina.utils.set_random_seed(0)
    model = NoisyStateless([layers.Input((3,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    start = global_seed_generator().state.numpy()
    collect = Collect()
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    model.fit(x, y, batch_size=2, epochs=1, verbose=0, callbacks=[collect])
    assert len(set(collect.noise)) == 4
    # Four draws of [0, 1] each, written back when fit ends.
    np.testing.assert_array_equal(global_seed_generator().state.numpy(), start + [0, 4])
