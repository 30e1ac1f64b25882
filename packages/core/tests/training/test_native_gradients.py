"""Gradients through lamina ops, taken by the backend framework's own autodiff.

What a user's custom training loop does: `jax.grad` over a stateless call, a
`tf.GradientTape`, or torch's `backward()`. Each test body is shared; only
`_value_and_grad` knows the framework. Results are compared with NumPy's analytic
derivatives (float32: rtol 1e-5, atol 1e-6 unless a test says otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import Capability
from lamina.ops.dispatch import backend
from lamina.testing import assert_allclose

pytestmark = pytest.mark.requires(Capability.TRAINING)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(5, 3)).astype("float32")


def _value_and_grad(loss_of: Callable[[Any], Any], v: lamina.Variable) -> tuple[float, Any]:
    """`loss_of(v)` and its gradient with respect to the variable `v` (as NumPy)."""
    name = backend().name
    if name == "jax":
        import jax

        def pure(value: Any) -> Any:
            with lamina.StatelessScope(state_mapping=[(v, value)]):
                return loss_of(v.value)

        loss, grad = jax.jit(jax.value_and_grad(pure))(v.value)
    elif name == "tensorflow":
        import tensorflow as tf

        with tf.GradientTape() as tape:
            loss = loss_of(v)
        grad = tape.gradient(loss, v.value)
    elif name == "torch":
        loss = loss_of(v)
        loss.backward()
        grad = v.value.grad
    else:
        pytest.skip(f"no autodiff recipe for backend {name!r}")
    return float(ops.convert_to_numpy(loss)), ops.convert_to_numpy(grad)


def _loss(w: Any, x: Any) -> Any:
    h = ops.sin(ops.matmul(x, ops.reshape(w, (3, 2))))
    return ops.sum(ops.add(h, ops.multiply(h, h)))


def test_gradient_of_a_variable_matches_the_analytic_one():
    x = RNG.normal(size=(4, 3)).astype("float32")
    w = RNG.normal(size=(6,)).astype("float32")
    v = lamina.Variable(w, dtype="float32")
    loss, grad = _value_and_grad(lambda value: _loss(value, x), v)
    z = x.astype("float64") @ w.reshape(3, 2)
    h = np.sin(z)
    assert grad.shape == (6,) and grad.dtype == np.float32
    np.testing.assert_allclose(loss, (h + h * h).sum(), rtol=1e-5)
    want = (x.T @ ((1 + 2 * h) * np.cos(z))).reshape(6)
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-6)


def test_stop_gradient_blocks_the_gradient():
    v = lamina.Variable(X)
    _, grad = _value_and_grad(lambda x: ops.sum(ops.multiply(x, ops.stop_gradient(x))), v)
    assert_allclose(grad, X)


def test_custom_gradient_replaces_the_gradient():
    @ops.custom_gradient
    def clipped_identity(x):
        return ops.multiply(x, 1.0), lambda upstream: ops.clip(upstream, -0.5, 0.5)

    def loss(x: Any) -> Any:
        # A tensor, not the variable: a framework's custom gradient differentiates tensors.
        return ops.sum(ops.multiply(clipped_identity(ops.convert_to_tensor(x)), 3.0))

    _, grad = _value_and_grad(loss, lamina.Variable(X))
    assert_allclose(grad, np.full_like(X, 0.5))


def test_custom_gradient_with_two_inputs():
    @ops.custom_gradient
    def product(a, b):
        return ops.multiply(a, b), lambda g: (ops.multiply(g, b), ops.zeros_like(a))

    def loss(a: Any) -> Any:
        return ops.sum(product(ops.convert_to_tensor(a), ops.convert_to_tensor(X + 1.0)))

    _, grad = _value_and_grad(loss, lamina.Variable(X))
    assert_allclose(grad, X + 1.0)


def test_gradient_flows_through_scan_and_fori_loop():
    def scanned(w: Any) -> Any:
        one = ops.convert_to_tensor(np.float32(1.0))
        _, ys = ops.scan(lambda c, _: (c * w, c * w), one, None, length=3)
        return ops.sum(ys)

    # ys = w, w^2, w^3, so d/dw = 1 + 2w + 3w^2.
    _, grad = _value_and_grad(scanned, lamina.Variable(np.float32(2.0)))
    assert_allclose(grad, np.float32(17.0))

    def cubed(v: Any) -> Any:
        return ops.sum(ops.fori_loop(0, 3, lambda i, acc: acc * v, ops.ones((5, 3))))

    _, grad = _value_and_grad(cubed, lamina.Variable(X))
    assert_allclose(grad, 3 * X**2, loose=4)
