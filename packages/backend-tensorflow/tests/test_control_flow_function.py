"""Control flow inside tf.function where TensorFlow alone traces: a scan of unknown length.

The shared compiled control-flow and gradient tests are in core
(packages/core/tests/ops/test_control_flow_compiled.py and
packages/core/tests/training/test_native_gradients.py).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from lamina import ops
from lamina.testing import assert_allclose

X = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")


def test_scan_in_tf_function_with_unknown_length():
    @tf.function(input_signature=[tf.TensorSpec((None, 3), tf.float32)])
    def cumsum(x):
        return ops.scan(lambda c, row: (ops.add(c, row), ops.add(c, row)), x[0] * 0, x)

    carry, ys = cumsum(tf.constant(X))
    assert_allclose(ys, np.cumsum(X, 0), loose=4)
    assert_allclose(carry, X.sum(0), loose=4)

    @tf.function
    def reverse(x):
        return ops.scan(lambda c, row: (ops.add(c, row), c), x[0] * 0, x, reverse=True)[1]

    expected = np.concatenate([np.cumsum(X[::-1], 0)[::-1][1:], np.zeros((1, 3))])
    assert_allclose(reverse(tf.constant(X)), expected.astype("float32"), loose=4)
