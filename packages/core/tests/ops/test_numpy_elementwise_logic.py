"""Comparisons, float-class tests, logic, bit ops, complex parts, rounding and clipping."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

PAIRS = [
    pytest.param("int8", "float16", marks=pytest.mark.half_precision),
    ("uint8", "int8"),
    ("int32", "float32"),
    ("bool", "int16"),
]
SPECIAL = np.array([-np.inf, -2.5, -0.0, 0.0, 1.0, np.inf, np.nan], "float32")

COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]


@pytest.mark.parametrize("name", COMPARISONS + LOGICAL + ["isclose"])
def test_bool_binary_matches_numpy(name):
    op, ref = getattr(ops, name), getattr(np, name)
    x = np.array([[1.0, 2.0, 0.0], [np.nan, -1.0, 3.0]], "float32")
    y = np.array([1.0, 0.0, 3.0], "float32")
    out = op(x, y)
    assert ops.dtype(out) == "bool"
    assert_allclose(out, ref(x, y))
    i1, i2 = np.array([1, 5, 0], "int32"), np.array([1, 3, 0], "int8")
    assert_allclose(op(i1, i2), ref(i1, i2))
    spec = op(lamina.Input((None, 3)), lamina.KerasTensor((3,), "int8"))
    assert (spec.shape, spec.dtype) == ((None, None, 3), "bool")
    with pytest.raises(ValueError, match=rf"`{name}`.*cannot be broadcast"):
        op(np.ones((2, 3)), np.ones((4,)))


@pytest.mark.parametrize("name", COMPARISONS + LOGICAL + ["isclose"])
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_bool_binary_accepts_mixed_dtypes(name, a, b):
    op = getattr(ops, name)
    x, y = np.array([1, 0, 1], a), np.array([1, 1, 0], b)
    with np.errstate(all="ignore"):
        assert_allclose(op(x, y), getattr(np, name)(x, y))
    assert op(lamina.KerasTensor((3,), a), lamina.KerasTensor((3,), b)).dtype == "bool"


@pytest.mark.parametrize("name", ["less", "less_equal", "greater", "greater_equal"])
def test_ordering_rejects_complex(name):
    with pytest.raises(TypeError, match=f"`{name}`"):
        getattr(ops, name)(np.ones(2, "complex64"), np.ones(2, "complex64"))


def test_equality_of_complex():
    z = np.array([1 + 1j, 2 - 1j], "complex64")
    assert_allclose(ops.equal(z, 1 + 1j), [True, False])
    assert_allclose(ops.not_equal(z, z), [False, False])


def test_isclose_tolerances_infinities_and_nan():
    x = np.array([1.0, 1.0, np.inf, np.inf, np.nan, 1e10], "float32")
    y = np.array([1.0001, 1.1, np.inf, -np.inf, np.nan, np.inf], "float32")
    for kw in ({}, {"rtol": 0.2}, {"atol": 1e-3, "equal_nan": True}):
        with np.errstate(all="ignore"):
            assert_allclose(ops.isclose(x, y, **kw), np.isclose(x, y, **kw))
    assert ops.dtype(ops.isclose(np.ones(2, "int32"), 1)) == "bool"
    with pytest.raises(ValueError, match=r"`isclose`.*rtol"):
        ops.isclose(x, y, rtol=-1.0)


@pytest.mark.parametrize("name", ["logical_not"])
def test_logical_not_treats_nonzero_as_true(name):
    x = np.array([0.0, 2.5, -1.0, np.nan], "float32")
    out = ops.logical_not(x)
    assert ops.dtype(out) == "bool"
    assert_allclose(out, np.logical_not(x))
    assert_allclose(ops.logical_not(np.array([0, 3], "int32")), [True, False])
    assert ops.logical_not(lamina.KerasTensor((None, 2), "int8")).dtype == "bool"
    with pytest.raises(TypeError, match="`logical_not`"):
        ops.logical_not(lamina.KerasTensor((2,), "string"))


PREDICATES = ["isfinite", "isinf", "isnan", "isneginf", "isposinf", "signbit", "isreal"]


@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_match_numpy(name):
    op, ref = getattr(ops, name), getattr(np, name)
    for x in (SPECIAL, np.array([-3, 0, 7], "int32")):
        out = op(x)
        assert ops.dtype(out) == "bool"
        assert_allclose(out, ref(x))
    assert_allclose(op(np.array([True, False])), ref(np.array([True, False])))
    spec = op(lamina.KerasTensor((None, 2), "float16"))
    assert (spec.shape, spec.dtype) == ((None, 2), "bool")
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(lamina.KerasTensor((2,), "string"))


@pytest.mark.half_precision
@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_on_half_precision(name):
    x = SPECIAL.astype("float16")
    out = getattr(ops, name)(x)
    assert ops.dtype(out) == "bool"
    assert_allclose(out, getattr(np, name)(x))


@pytest.mark.parametrize("name", ["isfinite", "isinf", "isnan", "isreal"])
def test_predicates_on_complex(name):
    z = np.array([1 + 1j, complex(np.inf, 0), complex(0, np.nan), 2 + 0j], "complex64")
    assert_allclose(getattr(ops, name)(z), getattr(np, name)(z))


@pytest.mark.parametrize("name", ["isneginf", "isposinf", "signbit"])
def test_real_only_predicates_reject_complex(name):
    with pytest.raises(TypeError, match=f"`{name}`"):
        getattr(ops, name)(np.ones(2, "complex64"))


def test_isin():
    x1 = np.array([[1, 2], [3, 4]], "int32")
    x2 = np.array([4, 1, 9], "int8")
    for invert in (False, True):
        out = ops.isin(x1, x2, invert=invert)
        assert ops.dtype(out) == "bool"
        assert_allclose(out, np.isin(x1, x2, invert=invert))
    f = np.array([0.5, 1.0, np.nan], "float32")
    assert_allclose(ops.isin(f, np.array([1.0, np.nan], "float32")), [False, True, False])
    assert_allclose(ops.isin(np.array([True, False]), np.array([True])), [True, False])
    spec = ops.isin(lamina.KerasTensor((None, 3), "int8"), lamina.KerasTensor((5,), "float32"))
    assert (spec.shape, spec.dtype) == ((None, 3), "bool")
    with pytest.raises(TypeError, match="`isin`"):
        ops.isin(lamina.KerasTensor((2,), "string"), lamina.KerasTensor((2,), "string"))


BITWISE = [
    ("bitwise_and", np.bitwise_and),
    ("bitwise_or", np.bitwise_or),
    ("bitwise_xor", np.bitwise_xor),
    ("bitwise_left_shift", np.left_shift),
    ("left_shift", np.left_shift),
    ("bitwise_right_shift", np.right_shift),
    ("right_shift", np.right_shift),
]
BITWISE_NAMES = [row[0] for row in BITWISE]
INT8_TO_32 = ["int8", "int16", "int32", "uint8", "uint16", "uint32"]


@pytest.mark.parametrize(("name", "ref"), BITWISE, ids=BITWISE_NAMES)
@pytest.mark.parametrize("dtype", INT8_TO_32)
def test_bitwise_binary_matches_numpy(name, ref, dtype):
    op = getattr(ops, name)
    x = np.array([[12, 10, 7], [1, 0, 5]], dtype)
    if dtype.startswith("int"):
        x[1] = -x[1]
    y = np.array([6, 3, 1], dtype)
    out = op(x, y)
    assert ops.dtype(out) == dtype
    assert_allclose(out, ref(x, y))
    spec = op(lamina.Input((None, 3), dtype=dtype), lamina.KerasTensor((3,), dtype))
    assert (spec.shape, spec.dtype) == ((None, None, 3), dtype)


@pytest.mark.parametrize(("name", "ref"), BITWISE, ids=BITWISE_NAMES)
def test_bitwise_binary_promotion_bools_and_errors(name, ref):
    op = getattr(ops, name)
    x, y = np.array([3, 1], "uint8"), np.array([1, 2], "int8")
    assert ops.dtype(op(x, y)) == dtypes.result_type("uint8", "int8")
    t, f = np.array([True, False, True]), np.array([True, True, False])
    expected = "int32" if "shift" in name else "bool"
    out = op(t, f)
    assert ops.dtype(out) == expected
    assert_allclose(out, ref(t.astype("int32"), f.astype("int32")).astype(expected))
    with pytest.raises(TypeError, match=rf"`{name}`.*integer or bool"):
        op(np.ones(2, "float32"), np.ones(2, "int32"))
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(lamina.KerasTensor((2,), "float16"), 1)


@pytest.mark.parametrize("name", ["bitwise_not", "bitwise_invert"])
@pytest.mark.parametrize("dtype", INT8_TO_32 + ["bool"])
def test_bitwise_not(name, dtype):
    x = np.array([0, 1, 5] if dtype != "bool" else [True, False, True], dtype)
    out = getattr(ops, name)(x)
    assert ops.dtype(out) == dtype
    assert_allclose(out, np.invert(x))
    assert getattr(ops, name)(lamina.KerasTensor((None,), dtype)).dtype == dtype
    with pytest.raises(TypeError, match=f"`{name}`"):
        getattr(ops, name)(np.ones(2, "float32"))


def test_complex_parts():
    z = np.array([[1 + 2j, -3 - 4j], [0j, -1 + 0j]], "complex64")
    for name in ("real", "imag", "angle", "conj", "conjugate"):
        out = getattr(ops, name)(z)
        expected = getattr(np, name)(z)
        assert ops.dtype(out) == expected.dtype.name
        assert_allclose(out, expected)
        spec = getattr(ops, name)(lamina.KerasTensor((None, 2), "complex128"))
        assert spec.shape == (None, 2)
        assert spec.dtype == ("complex128" if name.startswith("conj") else "float64")


@pytest.mark.parametrize("name", ["real", "imag", "angle", "conj", "conjugate"])
def test_complex_parts_of_real_inputs(name):
    x = np.array([-2.0, 0.0, 3.5, -0.0], "float32")
    out = getattr(ops, name)(x)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, getattr(np, name)(x))
    i = np.array([-2, 3], "int32")
    expected = "float32" if name == "angle" else "int32"
    assert ops.dtype(getattr(ops, name)(i)) == expected
    assert_allclose(getattr(ops, name)(i), getattr(np, name)(i))
    assert getattr(ops, name)(lamina.KerasTensor((None,), "int8")).dtype == (
        "float32" if name == "angle" else "int8"
    )
    with pytest.raises(TypeError, match=f"`{name}`"):
        getattr(ops, name)(lamina.KerasTensor((2,), "string"))


def test_clip():
    x = np.array([[-1.5, 5.0, 10.0], [2.0, 7.0, -8.0]], "float32")
    assert_allclose(ops.clip(x, 0.0, 6.0), np.clip(x, 0.0, 6.0))
    lo, hi = np.array([0.0, 6.0, 1.0], "float32"), np.array([1.0, 7.0, 9.0], "float32")
    assert_allclose(ops.clip(x, lo, hi), np.clip(x, lo, hi))
    assert_allclose(ops.clip(x, None, 3.0), np.minimum(x, 3.0))
    assert_allclose(ops.clip(x, 6.0, 2.0), np.full_like(x, 2.0))  # crossed: x_max wins
    ints = np.array([-3, 4, 9], "int8")
    out = ops.clip(ints, 0, 5)
    assert ops.dtype(out) == "int8"
    assert_allclose(out, [0, 4, 5])
    assert ops.dtype(ops.clip(np.array([True, False]), 0, 1)) == "int32"
    spec = ops.clip(lamina.KerasTensor((None, 3), "float16"), 0.0, lamina.KerasTensor((3,)))
    assert (spec.shape, spec.dtype) == ((None, 3), "float16")
    with pytest.raises(ValueError, match=r"`clip`.*x_min"):
        ops.clip(x, None, None)
    with pytest.raises(ValueError, match=r"`clip`.*cannot be broadcast"):
        ops.clip(x, np.zeros(4), 1.0)
    with pytest.raises(TypeError, match="`clip`"):
        ops.clip(np.ones(2, "complex64"), 0, 1)


def test_round():
    x = np.array([0.5, 1.5, 2.5, -0.5, 2.567, -1.234, 123.456], "float32")
    for decimals in (0, 1, 2, -1):
        out = ops.round(x, decimals)
        assert ops.dtype(out) == "float32"
        assert_allclose(out, np.round(x, decimals))
    ints = np.array([15, 25, -35, 44, 7, -45, 250], "int32")
    assert_allclose(ops.round(ints, -1), np.round(ints, -1))
    assert_allclose(ops.round(ints, -2), np.round(ints, -2))
    small = np.array([-128, 125, 15, 5], "int8")
    assert_allclose(ops.round(small, -1), np.round(small, -1))
    assert_allclose(ops.round(small, -3), np.zeros(4))
    u = np.array([250, 15, 25], "uint8")
    assert_allclose(ops.round(u, -1), np.round(u, -1))
    assert_allclose(ops.round(ints, 2), ints)
    assert ops.dtype(ops.round(ints, -1)) == "int32"
    assert ops.round(lamina.KerasTensor((None,), "bfloat16"), 2).dtype == "bfloat16"
    with pytest.raises(TypeError, match=r"`round`.*decimals"):
        ops.round(x, 1.5)


@pytest.mark.half_precision
def test_round_half_precision():
    half = np.array([0.5, 1.5, 2.5, -0.5, 2.567, -1.234, 123.456], "float16")
    assert_allclose(ops.round(half, 1), np.round(half, 1))


def test_nan_to_num():
    x = np.array([np.nan, np.inf, -np.inf, 1.5], "float32")
    assert_allclose(ops.nan_to_num(x), np.nan_to_num(x))
    kw = {"nan": -1.0, "posinf": 9.0, "neginf": -9.0}
    assert_allclose(ops.nan_to_num(x, **kw), np.nan_to_num(x, **kw))
    assert_allclose(ops.nan_to_num(np.array([1, 2], "int32")), [1, 2])
    spec = ops.nan_to_num(lamina.KerasTensor((None, 2), "float16"))
    assert (spec.shape, spec.dtype) == ((None, 2), "float16")
    with pytest.raises(TypeError, match=r"`nan_to_num`.*posinf"):
        ops.nan_to_num(x, posinf="big")


@pytest.mark.half_precision
def test_nan_to_num_half_precision():
    half = np.array([np.nan, np.inf, -np.inf, 1.5], "float16")
    out = ops.nan_to_num(half, posinf=100.0)
    assert ops.dtype(out) == "float16"
    assert_allclose(out, np.nan_to_num(half, posinf=100.0))


def test_symbolic_operators_record_the_ops():
    x = lamina.Input((None, 3), dtype="float32")
    y = lamina.Input((3,), dtype="int32")
    out = -((x * 2 - y / 3) ** 2) // 1.5 % 4
    assert (out.shape, out.dtype) == ((None, None, 3), "float32")
    assert (x < y).dtype == "bool"
    assert abs(x).dtype == "float32"
