"""lamina.regularizers: penalties vs NumPy, variables and layers, configs, get, errors.

Values are compared at the float32 row of `lamina.testing.TOLERANCES`, loosened 10x for
the sums over 20 elements.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import initializers, ops, regularizers
from lamina.testing import assert_allclose

KERAS_NAMES = [
    "L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize", "get", "l1",
    "l1_l2", "l2", "orthogonal_regularizer", "serialize",
]  # fmt: skip

W = np.random.default_rng(0).normal(size=(4, 5)).astype("float32")
W64 = W.astype("float64")


def test_every_keras_name_exists_and_aliases_are_classes():
    assert [n for n in KERAS_NAMES if not hasattr(regularizers, n)] == []
    assert regularizers.l1 is regularizers.L1
    assert regularizers.l2 is regularizers.L2
    assert regularizers.l1_l2 is regularizers.L1L2
    assert regularizers.orthogonal_regularizer is regularizers.OrthogonalRegularizer


def test_l1_l2_l1l2_match_numpy():
    assert_allclose(regularizers.L1(0.3)(W), 0.3 * np.abs(W64).sum(), dtype="float32", loose=10)
    assert_allclose(regularizers.L2(0.2)(W), 0.2 * np.square(W64).sum(), dtype="float32", loose=10)
    want = 0.1 * np.abs(W64).sum() + 0.05 * np.square(W64).sum()
    assert_allclose(regularizers.L1L2(l1=0.1, l2=0.05)(W), want, dtype="float32", loose=10)
    assert float(ops.convert_to_numpy(regularizers.L1L2()(W))) == 0.0


def test_defaults_and_none_factors():
    assert regularizers.L1().l1 == 0.01 and regularizers.L1(None).l1 == 0.01
    assert regularizers.L2().l2 == 0.01 and regularizers.L2(None).l2 == 0.01
    both = regularizers.L1L2(l1=None, l2=None)
    assert (both.l1, both.l2) == (0.0, 0.0)


def _orthogonal_ref(w, factor, mode):
    v = w if mode == "rows" else w.T
    unit = v / np.sqrt(np.maximum((v**2).sum(axis=1, keepdims=True), 1e-12))
    gram = unit @ unit.T
    n = gram.shape[0]
    off = gram * (1 - np.eye(n))
    return factor * 0.5 * np.abs(off).sum() / (n * (n - 1) / 2)


@pytest.mark.parametrize("mode", ["rows", "columns"])
def test_orthogonal_regularizer_matches_numpy(mode):
    got = regularizers.OrthogonalRegularizer(factor=0.4, mode=mode)(W)
    assert_allclose(got, _orthogonal_ref(W64, 0.4, mode), dtype="float32", loose=10)


def test_orthogonal_regularizer_is_zero_on_orthogonal_weights_and_single_rows():
    q = np.linalg.qr(W64.T)[0].T.astype("float32")  # 4 orthonormal rows of length 5
    got = regularizers.OrthogonalRegularizer(1.0, "rows")(q)
    assert abs(float(ops.convert_to_numpy(got))) < 1e-6
    one_row = regularizers.OrthogonalRegularizer(1.0, "rows")(W[:1])
    assert float(ops.convert_to_numpy(one_row)) == 0.0
    with pytest.raises(ValueError, match="2D"):
        regularizers.OrthogonalRegularizer()(np.ones((2, 2, 2), "float32"))


def test_regularizers_accept_variables():
    v = lamina.Variable(W)
    assert_allclose(regularizers.L2(1.0)(v), np.square(W64).sum(), dtype="float32", loose=10)
    got = regularizers.OrthogonalRegularizer(0.4)(v)
    assert_allclose(got, _orthogonal_ref(W64, 0.4, "rows"), dtype="float32", loose=10)


def test_base_regularizer_is_zero():
    assert float(ops.convert_to_numpy(regularizers.Regularizer()(W))) == 0.0


ROUND_TRIP = [
    regularizers.L1(0.3),
    regularizers.L2(0.2),
    regularizers.L1L2(l1=0.1, l2=0.05),
    regularizers.OrthogonalRegularizer(factor=0.5, mode="columns"),
]


@pytest.mark.parametrize("reg", ROUND_TRIP, ids=lambda r: type(r).__name__)
def test_config_round_trip(reg):
    config = regularizers.serialize(reg)
    assert config["class_name"] == type(reg).__name__
    for restored in (regularizers.deserialize(config), regularizers.get(config)):
        assert type(restored) is type(reg)
        assert restored.get_config() == reg.get_config()
        np.testing.assert_array_equal(ops.convert_to_numpy(restored(W)),
                                      ops.convert_to_numpy(reg(W)))


def test_get_accepts_every_identifier_kind():
    assert regularizers.get(None) is None
    assert isinstance(regularizers.get("l1"), regularizers.L1)
    assert isinstance(regularizers.get("L1L2"), regularizers.L1L2)
    orthogonal = regularizers.get("orthogonal_regularizer")
    assert isinstance(orthogonal, regularizers.OrthogonalRegularizer)
    assert isinstance(regularizers.get(regularizers.L2), regularizers.L2)
    inst = regularizers.L2(0.5)
    assert regularizers.get(inst) is inst

    def fn(x):
        return ops.sum(x)

    assert regularizers.get(fn) is fn
    keras_config = {"module": "keras.regularizers", "class_name": "L2",
                    "config": {"l2": 0.25}, "registered_name": None}
    assert regularizers.get(keras_config).l2 == 0.25
    for bad in ("l3", 7):
        with pytest.raises(ValueError):
            regularizers.get(bad)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: regularizers.L1(-0.1), ValueError, "l1"),
        (lambda: regularizers.L2(float("inf")), ValueError, "l2"),
        (lambda: regularizers.L1L2(l1="big"), TypeError, "l1"),
        (lambda: regularizers.OrthogonalRegularizer(factor=-1.0), ValueError, "factor"),
        (lambda: regularizers.OrthogonalRegularizer(mode="diagonal"), ValueError, "mode"),
    ],
)
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_layer_adds_the_penalty_to_its_losses():
    layer = lamina.layers.Layer()
    w = layer.add_weight(shape=(4, 5), initializer=initializers.Constant(W),
                         regularizer="l2")
    assert isinstance(w.regularizer, regularizers.L2)
    total = sum(float(ops.convert_to_numpy(x)) for x in layer.losses)
    np.testing.assert_allclose(total, 0.01 * np.square(W64).sum(), rtol=1e-5)
