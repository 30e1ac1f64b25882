"""Element-wise arithmetic and float math against NumPy: values, specs, promotion, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
PAIRS = [
    pytest.param("int8", "float16", marks=pytest.mark.half_precision),
    ("uint8", "int8"),
    ("int32", "float32"),
    ("bool", "int16"),
]


def _data(domain: str, shape: tuple[int, ...] = (2, 3), dtype: str = "float32") -> np.ndarray:
    low, high = {"any": (-3, 3), "pos": (0.1, 4), "unit": (-0.9, 0.9), "gt1": (1.1, 4)}[domain]
    return RNG.uniform(low, high, shape).astype(dtype)


_INTS = {"any": [-2, 0, 3], "pos": [1, 2, 3], "unit": [0, 0, 0], "gt1": [2, 3, 4]}


def _float_dtype(dtype: str) -> str:
    return dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)


# (op, NumPy reference, input domain, accepts complex)
FLOAT_UNARY = [
    ("sqrt", np.sqrt, "pos", True),
    ("cbrt", np.cbrt, "any", False),
    ("sin", np.sin, "any", True),
    ("cos", np.cos, "any", True),
    ("tan", np.tan, "unit", True),
    ("arcsin", np.arcsin, "unit", False),
    ("arccos", np.arccos, "unit", False),
    ("arctan", np.arctan, "any", False),
    ("sinh", np.sinh, "any", True),
    ("cosh", np.cosh, "any", True),
    ("tanh", np.tanh, "any", True),
    ("arcsinh", np.arcsinh, "any", False),
    ("arccosh", np.arccosh, "gt1", False),
    ("arctanh", np.arctanh, "unit", False),
    ("exp", np.exp, "any", True),
    ("exp2", np.exp2, "any", False),
    ("expm1", np.expm1, "any", False),
    ("log", np.log, "pos", True),
    ("log10", np.log10, "pos", False),
    ("log1p", np.log1p, "pos", False),
    ("log2", np.log2, "pos", False),
    ("sinc", np.sinc, "any", False),
    ("i0", scipy.special.i0, "any", False),
    ("deg2rad", np.deg2rad, "any", False),
    ("rad2deg", np.rad2deg, "any", False),
    ("reciprocal", np.reciprocal, "pos", True),
    ("ceil", np.ceil, "any", False),
    ("floor", np.floor, "any", False),
    ("fabs", np.fabs, "any", False),
]
FLOAT_UNARY_NAMES = [row[0] for row in FLOAT_UNARY]


@pytest.mark.parametrize(("name", "ref", "domain", "cplx"), FLOAT_UNARY, ids=FLOAT_UNARY_NAMES)
def test_float_unary_matches_numpy(name, ref, domain, cplx):
    op = getattr(ops, name)
    x = _data(domain)
    out = op(x)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(x))
    ints = np.array(_INTS[domain], "int32")
    out = op(ints)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(ints.astype("float32")))


@pytest.mark.half_precision
@pytest.mark.parametrize(("name", "ref", "domain", "cplx"), FLOAT_UNARY, ids=FLOAT_UNARY_NAMES)
def test_float_unary_keeps_half_precision(name, ref, domain, cplx):
    x = _data(domain, (5,), "float16")
    out = getattr(ops, name)(x)
    assert ops.dtype(out) == "float16"
    assert_allclose(out, ref(x.astype("float32")), dtype="float16", loose=2)


@pytest.mark.parametrize(("name", "ref", "domain", "cplx"), FLOAT_UNARY, ids=FLOAT_UNARY_NAMES)
def test_float_unary_symbolic_spec(name, ref, domain, cplx):
    op = getattr(ops, name)
    out = op(lamina.KerasTensor((None, 4), "int8"))
    assert (out.shape, out.dtype) == ((None, 4), "float32")
    assert op(lamina.KerasTensor((3, None), "float16")).dtype == "float16"


@pytest.mark.parametrize(("name", "ref", "domain", "cplx"), FLOAT_UNARY, ids=FLOAT_UNARY_NAMES)
def test_float_unary_complex_support_or_type_error(name, ref, domain, cplx):
    op = getattr(ops, name)
    z = (_data(domain, (4,)) + 1j * _data("unit", (4,))).astype("complex64")
    if cplx:
        out = op(z)
        assert ops.dtype(out) == "complex64"
        assert_allclose(out, ref(z), loose=4)
    else:
        with pytest.raises(TypeError, match=f"`{name}`"):
            op(z)
        with pytest.raises(TypeError, match=f"`{name}`"):
            op(lamina.KerasTensor((2,), "complex64"))
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(lamina.KerasTensor((2,), "string"))


# (op, NumPy reference, domain of x2): the result keeps the promoted dtype.
BINARY = [
    ("add", np.add, "any"),
    ("subtract", np.subtract, "any"),
    ("multiply", np.multiply, "any"),
    ("floor_divide", np.floor_divide, "pos"),
    ("mod", np.mod, "pos"),
    ("fmod", np.fmod, "pos"),
    ("power", np.power, "pos"),
    ("maximum", np.maximum, "any"),
    ("minimum", np.minimum, "any"),
    ("fmax", np.fmax, "any"),
    ("fmin", np.fmin, "any"),
]
# (op, NumPy reference, domain of x1, domain of x2): integers become floatx.
FLOAT_BINARY = [
    ("divide", np.divide, "any", "pos"),
    ("true_divide", np.true_divide, "any", "pos"),
    ("divide_no_nan", np.divide, "any", "pos"),
    ("arctan2", np.arctan2, "any", "any"),
    ("hypot", np.hypot, "any", "any"),
    ("logaddexp", np.logaddexp, "any", "any"),
    ("logaddexp2", np.logaddexp2, "any", "any"),
    ("heaviside", np.heaviside, "any", "pos"),
    ("nextafter", np.nextafter, "any", "any"),
]
BINARY_NAMES = [row[0] for row in BINARY]
FLOAT_BINARY_NAMES = [row[0] for row in FLOAT_BINARY]
ALL_BINARY = BINARY_NAMES + FLOAT_BINARY_NAMES + ["gcd", "lcm", "ldexp"]


@pytest.mark.parametrize(("name", "ref", "domain"), BINARY, ids=BINARY_NAMES)
def test_binary_matches_numpy(name, ref, domain):
    op = getattr(ops, name)
    x1 = _data("pos" if name == "power" else "any")
    x2 = _data(domain, (3,))
    out = op(x1, x2)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(x1, x2))
    i1 = np.array([[-7, 0, 5], [3, -2, 9]], "int32")
    i2 = np.array([2, 3, 1] if domain == "pos" else [-4, 0, 6], "int32")
    out = op(i1, i2)
    assert ops.dtype(out) == "int32"
    assert_allclose(out, ref(i1, i2))


@pytest.mark.parametrize(("name", "ref", "d1", "d2"), FLOAT_BINARY, ids=FLOAT_BINARY_NAMES)
def test_float_binary_matches_numpy(name, ref, d1, d2):
    op = getattr(ops, name)
    x1, x2 = _data(d1), _data(d2, (3,))
    out = op(x1, x2)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(x1, x2))
    i1 = np.array([-2, 0, 3], "int32")
    i2 = np.array(_INTS[d2], "int32")
    out = op(i1, i2)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(i1.astype("float32"), i2.astype("float32")))


@pytest.mark.parametrize("name", BINARY_NAMES + FLOAT_BINARY_NAMES)
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_binary_promotes_by_the_shared_lattice(name, a, b):
    op = getattr(ops, name)
    expected = dtypes.result_type(a, b)
    if name in FLOAT_BINARY_NAMES:
        expected = _float_dtype(expected)
    if name == "subtract" and a == "bool":
        expected = "int16"
    assert ops.dtype(op(np.ones((2,), a), np.ones((2,), b))) == expected
    assert op(lamina.KerasTensor((2,), a), lamina.KerasTensor((2,), b)).dtype == expected


@pytest.mark.parametrize("name", ALL_BINARY)
def test_binary_symbolic_broadcasts_and_rejects_bad_shapes(name):
    op = getattr(ops, name)
    dtype = "int32" if name in ("gcd", "lcm") else "float32"
    x2_dtype = "int32" if name in ("gcd", "lcm", "ldexp") else "float32"
    out = op(lamina.Input((None, 3), dtype=dtype), lamina.KerasTensor((3,), x2_dtype))
    assert out.shape == (None, None, 3)
    with pytest.raises(ValueError, match=rf"`{name}`.*cannot be broadcast"):
        op(np.ones((2, 3), dtype), np.ones((4,), x2_dtype))
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(lamina.KerasTensor((2, 3), dtype), lamina.KerasTensor((4,), x2_dtype))


@pytest.mark.parametrize(
    "name",
    ["floor_divide", "mod", "fmod", "maximum", "minimum", "fmax", "fmin"]
    + ["arctan2", "hypot", "logaddexp", "logaddexp2", "heaviside", "nextafter"],
)
def test_real_only_binary_rejects_complex(name):
    with pytest.raises(TypeError, match=f"`{name}`"):
        getattr(ops, name)(np.ones((2,), "complex64"), 1.0)


def test_python_scalars_are_weak():
    assert ops.dtype(ops.multiply(np.ones((2,), "int8"), 3)) == "int8"
    assert ops.dtype(ops.add(np.ones((2,), "float32"), 1.0)) == "float32"


@pytest.mark.half_precision
def test_python_scalars_keep_half_precision():
    assert ops.dtype(ops.add(np.ones((2,), "float16"), 1.0)) == "float16"
    assert ops.dtype(ops.divide(np.ones((2,), "float16"), 2)) == "float16"


def test_bool_arithmetic():
    t, f = np.array([True, False, True]), np.array([True, True, False])
    assert_allclose(ops.add(t, f), np.add(t, f))
    assert_allclose(ops.multiply(t, f), np.multiply(t, f))
    assert ops.dtype(ops.add(t, f)) == "bool"
    assert_allclose(ops.maximum(t, f), np.maximum(t, f))
    assert_allclose(ops.minimum(t, f), np.minimum(t, f))
    for name in ("floor_divide", "mod", "power"):
        out = getattr(ops, name)(t, np.array([True, True, True]))
        assert ops.dtype(out) == "int32"
    for name in ("subtract", "negative", "sign"):
        with pytest.raises(TypeError, match=f"`{name}`"):
            getattr(ops, name)(*((t, f) if name == "subtract" else (t,)))


def test_division_of_ints_is_float_and_no_nan_gives_zero():
    x, y = np.array([1, 2, 3], "int32"), np.array([2, 0, 4], "int32")
    out = ops.divide_no_nan(x, y)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, [0.5, 0.0, 0.75])
    assert_allclose(ops.divide_no_nan(np.zeros(2, "float32"), np.zeros(2, "float32")), [0, 0])
    assert_allclose(ops.true_divide(x, 2), x / 2)


def test_fmax_fmin_ignore_nan_but_maximum_propagates():
    x = np.array([np.nan, 1.0, np.nan], "float32")
    y = np.array([0.5, np.nan, np.nan], "float32")
    assert_allclose(ops.fmax(x, y), np.fmax(x, y))
    assert_allclose(ops.fmin(x, y), np.fmin(x, y))
    assert_allclose(ops.maximum(x, y), np.maximum(x, y))
    assert_allclose(ops.minimum(x, y), np.minimum(x, y))


def test_special_values_of_float_binaries():
    inf = np.inf
    a = np.array([-inf, inf, 0.0, -1.0, 0.0, np.nan], "float32")
    b = np.array([-inf, inf, 0.0, 0.0, -0.0, 1.0], "float32")
    with np.errstate(all="ignore"):
        for name in ("logaddexp", "logaddexp2", "hypot", "arctan2", "heaviside", "nextafter"):
            assert_allclose(getattr(ops, name)(a, b), getattr(np, name)(a, b))
        assert_allclose(ops.hypot(np.float32(3e30), np.float32(4e30)), 5e30)


@pytest.mark.half_precision
def test_nextafter_half_precision_steps_one_ulp():
    x = np.array([1.0, -1.0, 0.0, 0.0, 2.0], "float16")
    y = np.array([2.0, -2.0, 1.0, -1.0, 2.0], "float16")
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.nextafter(x, y)), np.nextafter(x, y))


@pytest.mark.parametrize("name", ["gcd", "lcm"])
def test_gcd_lcm_on_integers_only(name):
    x = np.array([12, -20, 7, 0], "int32")
    y = np.array([8, 6, 0, 5], "int16")
    out = getattr(ops, name)(x, y)
    assert ops.dtype(out) == "int32"
    assert_allclose(out, getattr(np, name)(x, y))
    with pytest.raises(TypeError, match=rf"`{name}`.*integer"):
        getattr(ops, name)(np.ones(2, "float32"), np.ones(2, "int32"))


def test_ldexp():
    x, e = np.array([1.5, -2.0, 3.0], "float32"), np.array([3, 0, -2], "int32")
    out = ops.ldexp(x, e)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, np.ldexp(x, e))
    assert ops.dtype(ops.ldexp(np.ones(2, "int32"), np.ones(2, "int8"))) == "float32"
    assert ops.ldexp(lamina.KerasTensor((None,), "float16"), 2).dtype == "float16"
    with pytest.raises(TypeError, match=r"`ldexp`.*integer"):
        ops.ldexp(x, np.ones(3, "float32"))


# (op, NumPy reference): one input, the dtype is kept.
SAME_UNARY = [
    ("negative", np.negative),
    ("abs", np.abs),
    ("absolute", np.absolute),
    ("sign", np.sign),
    ("square", np.square),
    ("trunc", np.trunc),
    ("round", np.round),
]
SAME_UNARY_NAMES = [row[0] for row in SAME_UNARY]


@pytest.mark.parametrize(("name", "ref"), SAME_UNARY, ids=SAME_UNARY_NAMES)
@pytest.mark.parametrize(
    "dtype", ["float32", "int32", "int8", pytest.param("float16", marks=pytest.mark.half_precision)]
)
def test_same_dtype_unary_matches_numpy(name, ref, dtype):
    op = getattr(ops, name)
    x = np.array([[-2.5, 0.0, 1.5], [3.7, -0.4, 2.0]]).astype(dtype)
    out = op(x)
    assert ops.dtype(out) == dtype
    assert_allclose(out, ref(x))
    spec = op(lamina.KerasTensor((None, 3), dtype))
    assert (spec.shape, spec.dtype) == ((None, 3), dtype)
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(lamina.KerasTensor((2,), "string"))


def test_abs_of_complex_is_real_and_sign_of_complex_is_unit():
    z = np.array([3 + 4j, -1j, 0], "complex64")
    out = ops.abs(z)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, np.abs(z))
    assert ops.absolute(lamina.KerasTensor((2,), "complex128")).dtype == "float64"
    assert_allclose(ops.sign(z), np.sign(z))
    assert_allclose(ops.square(z), np.square(z))
    assert ops.dtype(ops.square(np.array([True, False]))) == "int32"


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "power"])
def test_complex_arithmetic(name):
    z = np.array([3 + 4j, -1j, 2 + 0j], "complex64")
    w = np.array([1 - 1j, 2 + 0.5j, -1 + 0j], "complex64")
    out = getattr(ops, name)(z, w)
    assert ops.dtype(out) == "complex64"
    assert_allclose(out, getattr(np, name)(z, w), loose=4)
    assert_allclose(ops.divide_no_nan(z, np.array([0, 2, 1], "complex64")), [0, -0.5j, 2])


def _skip_unless_representable(dtype: str) -> None:
    """Skip where the backend cannot hold `dtype` (JAX keeps 64-bit types off by default)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            ok = ops.dtype(ops.convert_to_tensor(np.zeros(1, dtype))) == dtype
        except (ValueError, TypeError, UserWarning):
            ok = False
    if not ok:
        pytest.skip(f"the backend cannot hold {dtype} tensors")


@pytest.mark.parametrize("dtype", dtypes.INTS)
def test_integer_dtypes_work_on_every_backend(dtype):
    _skip_unless_representable(dtype)
    x = np.array([1, 5, 9], dtype)
    y = np.array([2, 5, 3], dtype)
    for name in ("add", "subtract", "multiply", "maximum", "minimum", "floor_divide", "mod"):
        out = getattr(ops, name)(x, y)
        assert ops.dtype(out) == dtype, name
        assert_allclose(out, getattr(np, name)(x, y))
    assert_allclose(ops.abs(x), x)
    assert_allclose(ops.square(x), np.square(x))
    assert_allclose(ops.negative(x), np.negative(x))
    assert_allclose(ops.clip(x, 2, 6), np.clip(x, 2, 6))
