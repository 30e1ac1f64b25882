"""lamina.Variable on the active backend: assignment, conversion, flags, paths and scopes."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops.dispatch import backend
from lamina.testing import assert_allclose

X = np.arange(6, dtype="float32").reshape(2, 3)


def test_constructor_makes_the_backend_class():
    v = lamina.Variable(X, name="kernel")
    assert type(v) is backend().variable_class and isinstance(v, lamina.Variable)
    assert v.shape == (2, 3) and v.ndim == 2 and v.dtype == "float32"
    assert v.name == "kernel" and v.path == "kernel"
    np.testing.assert_array_equal(v.numpy(), X)
    np.testing.assert_array_equal(np.asarray(v), X)
    assert backend().core.is_tensor(v.value) or backend().name == "tensorflow"


def test_callable_initializer_and_dtype():
    v = lamina.Variable(lambda shape, dtype: np.ones(shape, dtype), shape=(3,), dtype="int32")
    assert v.dtype == "int32" and v.numpy().dtype == np.int32
    np.testing.assert_array_equal(v.numpy(), [1, 1, 1])
    w = lamina.Variable([1, 2], dtype="float16")
    assert w.dtype == "float16" and w.numpy().dtype == np.float16


def test_assign_family_and_shape_checks():
    v = lamina.Variable(X)
    v.assign(X * 2)
    np.testing.assert_array_equal(v.numpy(), X * 2)
    v.assign_add(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(v.numpy(), X * 2 + 1)
    v.assign_sub(X)
    np.testing.assert_array_equal(v.numpy(), X + 1)
    v.assign(ops.convert_to_tensor(X))
    np.testing.assert_array_equal(v.numpy(), X)
    with pytest.raises(ValueError, match="shape"):
        v.assign(np.ones((3, 2), "float32"))
    with pytest.raises(ValueError, match="shape"):
        lamina.Variable(X, shape=(3, 2))
    with pytest.raises(ValueError, match="shape"):
        lamina.Variable(lambda shape, dtype: np.ones(shape), dtype="float32")


def test_flags_constraint_and_validation():
    def clip(x):
        return ops.add(x, 0.0)

    v = lamina.Variable(
        X,
        trainable=False,
        constraint=clip,
        aggregation="mean",
        synchronization="on_read",
        autocast=False,
    )
    assert v.trainable is False and v.constraint is clip and v.autocast is False
    assert v.aggregation == "mean" and v.synchronization == "on_read"
    v.trainable = True
    assert v.trainable is True
    np.testing.assert_array_equal(v.numpy(), X)
    for kwargs, arg in [
        ({"aggregation": "max"}, "aggregation"),
        ({"synchronization": "never"}, "synchronization"),
        ({"constraint": 3}, "constraint"),
        ({"name": "a/b"}, "name"),
    ]:
        with pytest.raises(ValueError, match=arg):
            lamina.Variable(X, **kwargs)


def test_path_under_name_scopes():
    with lamina.name_scope("model"), lamina.name_scope("dense"):
        v = lamina.Variable(X, name="bias")
    assert v.path == "model/dense/bias" and v.name == "bias"


def test_stateless_scope_swaps_values_and_collects_assignments():
    v = lamina.Variable(X)
    w = lamina.Variable(np.zeros((3,), "float32"))
    with lamina.StatelessScope(state_mapping=[(v, X * 10)]) as scope:
        np.testing.assert_array_equal(v.numpy(), X * 10)
        assert_allclose(ops.sum(v), float((X * 10).sum()))
        w.assign(np.ones((3,), "float32"))
        v.assign_add(np.ones((2, 3), "float32"))
        np.testing.assert_array_equal(w.numpy(), np.ones(3))
    np.testing.assert_array_equal(v.numpy(), X)
    np.testing.assert_array_equal(w.numpy(), np.zeros(3))
    np.testing.assert_array_equal(ops.convert_to_numpy(scope.get_current_value(w)), np.ones(3))
    np.testing.assert_array_equal(ops.convert_to_numpy(scope.get_current_value(v)), X * 10 + 1)
    with pytest.raises(ValueError, match="state_mapping"):
        lamina.StatelessScope(state_mapping=[(X, X)])


def test_arithmetic_operators():
    v = lamina.Variable(X)
    y = np.full((2, 3), 2.0, "float32")
    m = np.ones((3, 2), "float32")
    cases = [
        (v + y, X + y),
        (y + v, y + X),
        (v - y, X - y),
        (y - v, y - X),
        (v * y, X * y),
        (y * v, y * X),
        (v / y, X / y),
        (2.0 / (v + 1), 2.0 / (X + 1)),
        (v @ m, X @ m),
        (v**2, X**2),
        (-v, -X),
        (v[1], X[1]),
        (2.0 * v, 2 * X),
    ]
    for got, want in cases:
        assert ops.dtype(got) == "float32"
        assert_allclose(got, want)


def test_integer_and_bool_variables():
    v = lamina.Variable(np.array([1, 2, 3], "int32"), trainable=False)
    v.assign_add(np.array([1, 1, 1], "int32"))
    np.testing.assert_array_equal(v.numpy(), [2, 3, 4])
    b = lamina.Variable(np.array([True, False]))
    assert b.dtype == "bool"


@pytest.mark.parametrize(
    ("dtype", "start", "steps", "expected"),
    [
        ("int32", 5, [1, 2, -4], 4),  # a step counter
        ("uint8", 0, [3, np.uint8(2)], 5),
        ("float32", 0.5, [1, 0.25, np.float32(2.0)], 3.75),
        ("float16", 0.5, [1, 0.25], 1.75),
        ("bool", False, [True], True),
    ],
)
def test_assign_add_and_sub_of_scalars_give_the_sum_in_the_variable_dtype(
    dtype, start, steps, expected
):
    v = lamina.Variable(np.array(start, dtype), trainable=False)
    for step in steps:
        v.assign_add(step)
    assert v.dtype == dtype and ops.convert_to_numpy(v.value).dtype == np.dtype(dtype)
    assert v.numpy() == expected
    if dtype != "bool":
        v.assign_sub(steps[0])
        assert v.numpy() == np.array(expected, dtype) - np.array(steps[0], dtype)


def test_assign_add_of_tensors_checks_the_shape():
    v = lamina.Variable(X)
    v.assign_add(ops.convert_to_tensor(np.ones((2, 3), "float32")))  # same shape and dtype
    v.assign_add(ops.convert_to_tensor(np.float32(2.0)))  # a scalar tensor
    v.assign_sub(ops.convert_to_tensor(np.ones((3,), "float16")))  # broadcast, promoted
    np.testing.assert_array_equal(v.numpy(), X + 2.0)
    assert v.dtype == "float32"
    with pytest.raises(ValueError, match="shape"):
        v.assign_add(ops.convert_to_tensor(np.ones((4, 2, 3), "float32")))
    np.testing.assert_array_equal(v.numpy(), X + 2.0)  # a refused sum changes nothing
    with lamina.StatelessScope() as scope:
        v.assign_add(1.0)  # recorded in the scope, not added in place
    np.testing.assert_array_equal(v.numpy(), X + 2.0)
    np.testing.assert_array_equal(ops.convert_to_numpy(scope.get_current_value(v)), X + 3.0)
