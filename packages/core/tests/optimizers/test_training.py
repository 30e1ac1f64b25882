"""Optimizers inside each backend's compiled training step (jax.jit through
`stateless_apply`, tf.function, torch): the loss falls and the state advances."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops, optimizers
from lamina.backend import Capability
from lamina.layers import Input, Layer
from lamina.models import Sequential


class Affine(Layer):
    """``x @ W + b`` with zero-initialized weights (enough to learn a linear target)."""

    def build(self, input_shape):
        zeros = lambda shape, dtype=None: np.zeros(shape, dtype)  # noqa: E731
        self.kernel = self.add_weight(shape=(input_shape[-1], 1), initializer=zeros, name="kernel")
        self.bias = self.add_weight(shape=(1,), initializer=zeros, name="bias")

    def call(self, x):
        return ops.add(ops.matmul(x, self.kernel), self.bias)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], 1)


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
    return x, y


@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.Adam(learning_rate=0.05),
        lambda: optimizers.SGD(learning_rate=0.05, momentum=0.9, nesterov=True),
        lambda: optimizers.RMSprop(learning_rate=0.05, gradient_accumulation_steps=2),
        lambda: optimizers.LossScaleOptimizer(optimizers.Adam(learning_rate=0.05)),
        lambda: optimizers.AdamW(
            learning_rate=optimizers.schedules.CosineDecay(0.05, 200), use_ema=True
        ),
        lambda: optimizers.Lion(learning_rate=0.05, clipnorm=1.0),
    ],
    ids=["adam", "sgd", "rmsprop-accum", "loss-scale", "adamw-schedule-ema", "lion"],
)
def test_fit_reduces_loss(make):
    x, y = _data()
    model = Sequential([Input((3,)), Affine()])
    opt = make()
    model.compile(optimizer=opt, loss="mse")
    first = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=10, batch_size=16, verbose=0)
    last = model.evaluate(x, y, verbose=0)
    assert last < 0.5 * first
    assert int(np.asarray(opt.iterations)) == 40
