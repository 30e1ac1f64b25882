"""JaxVariable as a pytree: variables go straight into jax.jit, jax.grad and jax.tree."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina import random as lr
from lamina.random.seed_generator import SeedStateScope, global_seed_generator

X = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")


def _dense(seed=0):
    lamina.utils.set_random_seed(seed)
    return lamina.Sequential([layers.Input((3,)), layers.Dense(2)])


def _numpy_dense(model):
    kernel, bias = (v.numpy() for v in model.trainable_variables)
    return X @ kernel + bias


def test_jit_takes_trainable_variables_and_ops_run_on_them():
    model = _dense()
    traces = []

    @jax.jit
    def forward(variables, x):
        traces.append(1)
        kernel, bias = variables
        assert isinstance(kernel, jax.Array)  # a variable stands for its value inside
        return ops.add(ops.matmul(x, kernel), bias)

    out = forward(model.trainable_variables, X)
    np.testing.assert_allclose(np.asarray(out), _numpy_dense(model), rtol=1e-6, atol=1e-6)
    other = _dense(seed=1)  # same shapes: the same trace serves another model's variables
    np.testing.assert_allclose(
        np.asarray(forward(other.trainable_variables, X)), _numpy_dense(other), rtol=1e-6,
        atol=1e-6,
    )
    assert len(traces) == 1


def test_tree_map_and_grad_give_arrays_that_assign_and_apply_take():
    model = _dense()
    doubled = jax.tree.map(lambda v: v * 2, model.trainable_variables)
    assert all(isinstance(d, jax.Array) for d in doubled)
    for d, v in zip(doubled, model.trainable_variables):
        np.testing.assert_array_equal(np.asarray(d), 2 * v.numpy())
    before = [v.numpy() for v in model.trainable_variables]

    def loss(variables):
        kernel, bias = variables
        return jnp.mean((X @ kernel + bias) ** 2)

    grads = jax.grad(loss)(model.trainable_variables)
    optimizer = lamina.optimizers.SGD(0.1)
    optimizer.apply(grads, model.trainable_variables)
    for v, b, g in zip(model.trainable_variables, before, grads):
        np.testing.assert_allclose(v.numpy(), b - 0.1 * np.asarray(g), rtol=1e-6, atol=1e-7)
    model.trainable_variables[1].assign(doubled[1])
    np.testing.assert_array_equal(model.trainable_variables[1].numpy(), np.asarray(doubled[1]))


def test_leaves_are_the_values_in_the_current_scope_with_key_paths():
    v = lamina.Variable(np.zeros(2, "float32"), name="w")
    with lamina.StatelessScope(state_mapping=[(v, np.ones(2, "float32"))]):
        (leaf,) = jax.tree.leaves(v)
    np.testing.assert_array_equal(np.asarray(leaf), [1.0, 1.0])
    ((path, _),) = jax.tree_util.tree_flatten_with_path(v)[0]
    assert jax.tree_util.keystr(path) == ".value"
    # A variable returned from a jitted function comes back as its (scoped) value.
    out = jax.jit(lambda: v)()
    assert isinstance(out, jax.Array)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 0.0])


def test_assigning_a_traced_value_outside_a_stateless_scope_is_refused():
    v = lamina.Variable(np.zeros(2, "float32"), name="counter")
    with pytest.raises(ValueError, match=r"'counter'.*StatelessScope"):
        jax.jit(lambda x: v.assign(x))(jnp.ones(2))
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])  # nothing leaked into it


def test_seed_state_scope_threads_unseeded_draws_through_a_jitted_function():
    @jax.jit
    def draw(seed):
        with SeedStateScope(seed) as scope:
            return lr.normal((3,)), scope.value

    seed = global_seed_generator().state.value
    first, seed = draw(seed)
    second, seed = draw(seed)
    assert not np.array_equal(np.asarray(first), np.asarray(second))


def test_unseeded_draws_in_a_stateless_call_under_jit_use_fresh_concrete_seeds():
    # The global state is not carried here: each trace gets a fresh seed, nothing leaks.
    model = lamina.Sequential([layers.Input((3,)), layers.Lambda(lambda x: x + lr.normal((3,)))])
    fn = jax.jit(lambda x: model.stateless_call([], [], x)[0])
    a = np.asarray(fn(X))
    b = np.asarray(jax.jit(lambda x: model.stateless_call([], [], x)[0])(X))
    assert not np.array_equal(a, b)
    assert isinstance(global_seed_generator().state.value, jax.Array)
