"""Control flow inside the backend's own graph compiler, with traced predicates and bounds.

`jax.jit` and `tf.function` hand the ops tensors whose values are unknown while tracing,
so `cond`, `switch`, the loops and `slice` must build the framework's control flow rather
than read a Python value. PyTorch and NumPy run the same bodies eagerly (torch.compile is
covered by the trainer's step modes; it would take seconds per function here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import ops
from lamina.ops.dispatch import backend
from lamina.testing import assert_allclose

X = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")


def _compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` traced by the backend's graph compiler where it has one, else `fn` itself."""
    name = backend().name
    if name == "jax":
        import jax

        return jax.jit(fn)
    if name == "tensorflow":
        import tensorflow as tf

        return tf.function(fn)
    return fn


def _int(value: int) -> Any:
    # A tensor, not a Python int: compilers trace tensors and fold Python constants.
    return ops.convert_to_tensor(np.int32(value))


def test_cond_on_a_traced_predicate():
    f = _compiled(lambda x: ops.cond(ops.sum(x) > 0, lambda: ops.add(x, 1.0), lambda: x))
    assert_allclose(f(ops.convert_to_tensor(X)), X + 1.0 if X.sum() > 0 else X)
    assert_allclose(f(ops.convert_to_tensor(-abs(X))), -abs(X))


def test_switch_on_a_traced_index_clamps_it():
    branches = [lambda x: ops.add(x, 1.0), lambda x: ops.add(x, 2.0)]
    f = _compiled(lambda i, x: ops.switch(i, branches, x))
    x = ops.convert_to_tensor(X)
    assert_allclose(f(_int(1), x), X + 2.0)
    assert_allclose(f(_int(7), x), X + 2.0)
    assert_allclose(f(_int(-4), x), X + 1.0)


def test_while_and_fori_loop_with_traced_bounds():
    count = _compiled(
        lambda limit: ops.while_loop(lambda i, s: i < limit, lambda i, s: (i + 1, s + i), (0, 0))
    )
    i, s = count(_int(6))
    assert (int(i), int(s)) == (6, 15)
    capped = _compiled(lambda n: ops.while_loop(lambda v: v < n, lambda v: v + 1, 0, 4))
    assert int(capped(_int(100))) == 4
    fori = _compiled(lambda n, x: ops.fori_loop(0, n, lambda i, v: ops.add(v, x), x * 0))
    assert_allclose(fori(_int(3), ops.convert_to_tensor(X)), 3 * X)


def test_scan_associative_scan_and_vectorized_map():
    def cumsum(x: Any) -> Any:
        return ops.scan(lambda c, row: (ops.add(c, row), ops.add(c, row)), ops.zeros((3,)), x)

    carry, ys = _compiled(cumsum)(ops.convert_to_tensor(X))
    assert_allclose(ys, np.cumsum(X, 0), loose=4)
    assert_allclose(carry, X.sum(0), loose=4)
    prefix = _compiled(lambda x: ops.associative_scan(ops.add, x, axis=1))
    assert_allclose(prefix(ops.convert_to_tensor(X)), np.cumsum(X, 1), loose=4)
    vmapped = _compiled(lambda x: ops.vectorized_map(lambda r: ops.sum(r), x))
    assert_allclose(vmapped(ops.convert_to_tensor(X)), X.sum(1), loose=4)


def test_slice_and_slice_update_with_traced_starts():
    x = ops.convert_to_tensor(X)
    f = _compiled(lambda x, i: ops.slice(x, (i, 0), (2, 3)))
    assert_allclose(f(x, _int(1)), X[1:3])
    assert_allclose(f(x, _int(9)), X[3:5])  # clamped so the block fits
    g = _compiled(lambda x, i: ops.slice_update(x, (i, 1), ops.ones((1, 2))))
    expected = X.copy()
    expected[2, 1:] = 1.0
    assert_allclose(g(x, _int(2)), expected)
