"""lamina.constraints: projections vs NumPy, axes, variables, configs, get, errors.

Values are compared at the float32 row of `lamina.testing.TOLERANCES`; the references use
the same epsilon (`lamina.config.epsilon()`) in the denominator.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import constraints, ops
from lamina.testing import assert_allclose

KERAS_NAMES = [
    "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
    "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm",
]  # fmt: skip

W = (np.random.default_rng(0).normal(size=(4, 6)) * 2).astype("float32")
W64 = W.astype("float64")
EPS = 1e-7


def _norms(w, axis):
    return np.sqrt((w**2).sum(axis=axis, keepdims=True))


def test_every_keras_name_exists_and_aliases_are_classes():
    assert [n for n in KERAS_NAMES if not hasattr(constraints, n)] == []
    assert constraints.max_norm is constraints.MaxNorm
    assert constraints.min_max_norm is constraints.MinMaxNorm
    assert constraints.non_neg is constraints.NonNeg
    assert constraints.unit_norm is constraints.UnitNorm


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_max_norm(axis):
    ax = tuple(axis) if isinstance(axis, list) else axis
    n = _norms(W64, ax)
    want = W64 * np.clip(n, 0, 1.5) / (n + EPS)
    got = constraints.MaxNorm(max_value=1.5, axis=axis)(W)
    assert ops.dtype(got) == "float32"
    assert_allclose(got, want, dtype="float32")
    assert np.all(_norms(ops.convert_to_numpy(got).astype("float64"), ax) <= 1.5 + 1e-5)


def test_max_norm_leaves_small_slices_almost_unchanged():
    small = W / 100
    assert_allclose(constraints.MaxNorm(2.0)(small), small, dtype="float32", loose=10)


@pytest.mark.parametrize("rate", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("axis", [0, 1])
def test_min_max_norm(rate, axis):
    n = _norms(W64, axis)
    desired = rate * np.clip(n, 1.0, 2.0) + (1 - rate) * n
    got = constraints.MinMaxNorm(min_value=1.0, max_value=2.0, rate=rate, axis=axis)(W)
    assert_allclose(got, W64 * desired / (n + EPS), dtype="float32")


def test_non_neg():
    got = constraints.NonNeg()(W)
    np.testing.assert_array_equal(ops.convert_to_numpy(got), np.where(W >= 0, W, 0))


@pytest.mark.parametrize("axis", [0, 1])
def test_unit_norm(axis):
    got = constraints.UnitNorm(axis=axis)(W)
    assert_allclose(got, W64 / (_norms(W64, axis) + EPS), dtype="float32")
    norms = _norms(ops.convert_to_numpy(got).astype("float64"), axis)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)


def test_base_constraint_is_identity_and_variables_are_accepted():
    np.testing.assert_array_equal(ops.convert_to_numpy(constraints.Constraint()(W)), W)
    v = lamina.Variable(W)
    assert_allclose(constraints.UnitNorm()(v), W64 / (_norms(W64, 0) + EPS), dtype="float32")


ROUND_TRIP = [
    constraints.MaxNorm(max_value=3.0, axis=1),
    constraints.MinMaxNorm(min_value=0.5, max_value=2.0, rate=0.3, axis=[0, 1]),
    constraints.NonNeg(),
    constraints.UnitNorm(axis=1),
]


@pytest.mark.parametrize("c", ROUND_TRIP, ids=lambda c: type(c).__name__)
def test_config_round_trip(c):
    config = constraints.serialize(c)
    assert config["class_name"] == type(c).__name__
    for restored in (constraints.deserialize(config), constraints.get(config)):
        assert type(restored) is type(c)
        assert restored.get_config() == c.get_config()
        np.testing.assert_array_equal(ops.convert_to_numpy(restored(W)),
                                      ops.convert_to_numpy(c(W)))


def test_get_accepts_every_identifier_kind():
    assert constraints.get(None) is None
    assert isinstance(constraints.get("max_norm"), constraints.MaxNorm)
    assert isinstance(constraints.get("UnitNorm"), constraints.UnitNorm)
    assert isinstance(constraints.get(constraints.NonNeg), constraints.NonNeg)
    inst = constraints.MaxNorm(1.0)
    assert constraints.get(inst) is inst

    def fn(w):
        return w

    assert constraints.get(fn) is fn
    keras_config = {"module": "keras.constraints", "class_name": "MaxNorm",
                    "config": {"max_value": 4, "axis": 0}, "registered_name": None}
    assert constraints.get(keras_config).max_value == 4.0
    for bad in ("max_norms", 1.5):
        with pytest.raises(ValueError):
            constraints.get(bad)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: constraints.MaxNorm(max_value=-1.0), ValueError, "max_value"),
        (lambda: constraints.MaxNorm(axis="rows"), TypeError, "axis"),
        (lambda: constraints.MinMaxNorm(min_value=2.0, max_value=1.0), ValueError, "max_value"),
        (lambda: constraints.MinMaxNorm(rate=1.5), ValueError, "rate"),
        (lambda: constraints.MinMaxNorm(rate="fast"), TypeError, "rate"),
        (lambda: constraints.UnitNorm(axis=1.0), TypeError, "axis"),
    ],
)
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_layer_weights_carry_the_constraint():
    layer = lamina.layers.Layer()
    w = layer.add_weight(shape=(3, 2), initializer="ones", constraint="unit_norm")
    assert isinstance(w.constraint, constraints.UnitNorm)
    projected = ops.convert_to_numpy(w.constraint(w))
    np.testing.assert_allclose(projected, np.full((3, 2), 1 / np.sqrt(3)), rtol=1e-5)
