"""Random ops with ``seed=None`` inside a compiled step draw new numbers at every step.

JAX's jitted step carries the global seed state as explicit input and output, TensorFlow's
`tf.function` and torch update its variable: on each backend successive steps (and
successive `fit` calls, and `predict` batches) differ, and `set_random_seed` replays them.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops, random
from lamina.backend import Capability

training = pytest.mark.requires(Capability.TRAINING)

STEPS = 5
X = np.ones((2 * STEPS, 3), "float32")
Y = np.ones((2 * STEPS, 1), "float32")

DRAWS = {
    "normal": lambda: random.normal((8,)),
    "uniform": lambda: random.uniform((8,)),
    "dropout": lambda: random.dropout(ops.ones((16,)), 0.5),
}


class Recorder(layers.Layer):
    """Adds nothing to its input; keeps row ``i`` of `draws` = what training step ``i`` drew."""

    def __init__(self, draw, rows, width, **kwargs):
        super().__init__(**kwargs)
        self.draw, self.rows, self.width = draw, rows, width

    def build(self, input_shape):
        self.draws = self.add_weight(
            shape=(self.rows, self.width), initializer="zeros", trainable=False, name="draws"
        )
        self.count = self.add_weight(shape=(), initializer="zeros", trainable=False, name="count")

    def call(self, x, training=False):
        if not training:
            return x
        noise = DRAWS[self.draw]()
        row = ops.equal(ops.cast(ops.arange(self.rows), "float32")[:, None], self.count)
        self.draws.assign(ops.where(row, noise[None, :], self.draws))
        self.count.assign(self.count + 1.0)
        return x + 0.0 * ops.sum(noise)


def _train(draw, seed, fits=1, jit_compile="auto"):
    lamina.utils.set_random_seed(seed)
    width = int(DRAWS[draw]().shape[0])
    recorder = Recorder(draw, rows=fits * STEPS, width=width)
    model = lamina.Sequential([layers.Input((3,)), recorder, layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", jit_compile=jit_compile)
    for _ in range(fits):
        model.fit(X, Y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    assert int(recorder.count.numpy()) == fits * STEPS
    return recorder.draws.numpy()


def _distinct_rows(draws):
    return len({row.tobytes() for row in draws})


@training
@pytest.mark.parametrize("draw", sorted(DRAWS))
def test_unseeded_draws_differ_between_steps_and_replay_with_set_random_seed(draw):
    first = _train(draw, seed=3, fits=2)
    assert _distinct_rows(first) == 2 * STEPS  # every step of both fits drew anew
    np.testing.assert_array_equal(_train(draw, seed=3, fits=2), first)
    assert not np.array_equal(_train(draw, seed=4, fits=2), first)


@training
def test_eager_and_compiled_steps_both_draw_anew():
    eager = _train("normal", seed=5, jit_compile=False)
    assert _distinct_rows(eager) == STEPS


class Noise(layers.Layer):
    """Adds unseeded noise in inference too (as a sampling layer does)."""

    def call(self, x):
        return x + random.normal((1, 4))


def test_unseeded_draws_differ_between_predict_batches():
    def predict(seed):
        lamina.utils.set_random_seed(seed)
        model = lamina.Sequential([layers.Input((4,)), Noise()])
        return model.predict(np.zeros((6, 4), "float32"), batch_size=2, verbose=0)

    out = predict(7)
    np.testing.assert_array_equal(out[0], out[1])  # one draw per batch, broadcast
    assert _distinct_rows(out[::2]) == 3
    np.testing.assert_array_equal(predict(7), out)
