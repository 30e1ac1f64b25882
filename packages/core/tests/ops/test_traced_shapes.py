"""Ops given shapes built from ``ops.shape(x)``, inside each backend's own compiled steps.

Where a backend traces steps with sizes unknown (TensorFlow's `tf.function` once a partial
batch retraces it), ``ops.shape(x)[0]`` is a scalar tensor; on JAX it is an int under `jit`,
on PyTorch and NumPy an int. Each layer here uses one shape-taking op that way and runs
through `check_layer` (whose fit check fits, evaluates and predicts with a partial last
batch) and through `predict` against a NumPy reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops, random
from lamina.layers import Layer
from lamina.testing import check_layer

RNG = np.random.default_rng(4)


class Scaled(Layer):
    """A trainable scale, so that fit has something to train, then `transform`."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale")
        self.built = True

    def call(self, x, training=None):
        # `.value`: a strict array-API tensor takes no Variable operand.
        return self.transform(x * self.scale.value)


class BatchReshape(Scaled):
    def transform(self, x):
        return ops.reshape(x, (ops.shape(x)[0], -1, 4, 8))


class CreatedPerSample(Scaled):
    def transform(self, x):
        n, dtype = ops.shape(x)[0], x.dtype
        made = [
            ops.zeros((n, 1), dtype),
            ops.ones((n, 1), dtype),
            ops.full((n, 1), 3.0, dtype),
            ops.broadcast_to(ops.arange(2.0, dtype=dtype), (n, 2)),
            ops.tile(ops.expand_dims(ops.arange(2.0, dtype=dtype), 0), (n, 1)),
        ]
        return ops.concatenate([x, *made], axis=-1)


class NoiseLike(Scaled):
    """Random draws shaped by the traced batch size in training; zeros in inference."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = random.SeedGenerator(seed)

    def call(self, x, training=None):
        x = x * self.scale.value
        if not training:
            return ops.concatenate([x, ops.zeros((ops.shape(x)[0], 32), x.dtype)], axis=-1)
        like = random.normal(shape=ops.shape(x), seed=self.generator, dtype=x.dtype)
        extra = random.normal((ops.shape(x)[0], 32), seed=self.generator, dtype=x.dtype)
        return ops.concatenate([x + 0.01 * like, 0.01 * extra], axis=-1)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


class DropoutByBatch(Scaled):
    """`random.dropout` with a noise shape holding the traced batch size."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = random.SeedGenerator(seed)

    def call(self, x, training=None):
        x = x * self.scale.value
        if not training:
            return x
        shape = ops.shape(x)
        return random.dropout(x, 0.5, noise_shape=(shape[0], 1, shape[2]), seed=self.generator)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


CASES = [
    (BatchReshape, {}, (2, 64), lambda x: x.reshape(len(x), -1, 4, 8)),
    (
        CreatedPerSample,
        {},
        (2, 3),
        lambda x: np.concatenate(
            [x, np.zeros((len(x), 1)), np.ones((len(x), 1)), np.full((len(x), 1), 3.0),
             np.tile(np.arange(2.0), (len(x), 2))],
            axis=-1,
        ),
    ),
    (NoiseLike, {"seed": 1}, (2, 5), lambda x: np.concatenate([x, np.zeros((len(x), 32))], -1)),
    (DropoutByBatch, {"seed": 2}, (2, 3, 4), lambda x: x),
]


@pytest.mark.parametrize(
    ("layer_cls", "kwargs", "shape", "reference"), CASES, ids=[c[0].__name__ for c in CASES]
)
def test_shapes_from_ops_shape_in_compiled_steps(layer_cls, kwargs, shape, reference):
    check_layer(layer_cls, kwargs, shape)
    inputs = lamina.Input(shape[1:])
    model = lamina.Model(inputs, layer_cls(**kwargs)(inputs))
    x = RNG.standard_normal((7, *shape[1:])).astype("float32")
    got = model.predict(x, batch_size=3, verbose=0)
    np.testing.assert_allclose(got, reference(x), rtol=1e-6, atol=1e-6)


def test_symbolic_reshape_with_the_unknown_batch_dim():
    x = lamina.Input((64,))
    y = ops.reshape(x, (ops.shape(x)[0], -1, 4, 8))
    assert y.shape == (None, None, 4, 8)  # as Keras 3: -1 stays unknown beside None
    assert ops.reshape(x, (-1, 4, 16)).shape == (None, 4, 16)


def test_symbolic_broadcast_and_tile_with_the_unknown_batch_dim():
    x = lamina.Input((3,))
    assert ops.broadcast_to(x[:, :1], (ops.shape(x)[0], 3)).shape == (None, 3)
    assert ops.tile(x, (2, 1)).shape == (None, 3)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: ops.zeros((2, -1)), ValueError, "must not be negative"),
        (lambda: ops.zeros((2, 1.5)), TypeError, "must hold ints"),
        (lambda: ops.zeros((2, None)), ValueError, "unknown"),
        (lambda: random.normal((2, -3)), ValueError, "non-negative ints"),
        (lambda: ops.reshape(np.ones(6, "float32"), (-1, -1)), ValueError, "at most one -1"),
        (lambda: ops.reshape(np.ones(6, "float32"), (4, -1)), ValueError, "cannot reshape"),
        (lambda: ops.broadcast_to(np.ones(2, "float32"), (3, -2)), ValueError,
         "must not be negative"),
        (lambda: ops.tile(np.ones(2, "float32"), (2, "a")), TypeError, "must hold ints"),
        (lambda: random.dropout(np.ones((2, 3), "float32"), 0.5, noise_shape=(2, 2)),
         ValueError, "must broadcast"),
    ],
)
def test_bad_shapes_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_shape_given_as_a_tensor_or_a_scalar_tensor_dim():
    x = ops.ones((2, 6))
    assert tuple(ops.reshape(x, ops.convert_to_tensor([3, 4])).shape) == (3, 4)
    n = ops.convert_to_tensor(3)
    assert tuple(ops.zeros((n, 2)).shape) == (3, 2)
    assert tuple(random.uniform((n,), seed=0).shape) == (3,)
