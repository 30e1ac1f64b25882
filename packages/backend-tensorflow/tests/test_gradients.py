"""Gradients inside a tf.function match eager tf.GradientTape ones.

The shared gradient tests (every training backend's own autodiff against NumPy) are in
core: packages/core/tests/training/test_native_gradients.py.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import lamina
from lamina import ops


def _loss(w, x):
    h = ops.sin(ops.matmul(x, ops.reshape(w, (3, 2))))
    return ops.sum(ops.add(h, ops.multiply(h, h)))


def test_gradient_inside_tf_function():
    v = lamina.Variable(np.ones((6,)), dtype="float64")
    x = tf.constant(np.random.default_rng(0).normal(size=(4, 3)))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = _loss(v, x)
        return tape.gradient(loss, v.value)

    eager = tf.GradientTape()
    with eager:
        loss = _loss(v, x)
    np.testing.assert_allclose(step().numpy(), eager.gradient(loss, v.value).numpy(), rtol=1e-12)
