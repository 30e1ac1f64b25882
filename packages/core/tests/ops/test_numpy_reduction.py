"""Reductions, index reductions and cumulative ops against NumPy: values, specs, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 3, 4)).astype("float32")
XN = X.copy()
XN[0, 1, 2] = XN[1, 0, 0] = XN[1, 2, 3] = np.nan
XB = X > 0


def _np_nanargmax(x, axis=None, keepdims=False):
    return np.nanargmax(x, axis=axis, keepdims=keepdims)


# name -> (op, numpy reference, input, output dtype for float32 input)
REDUCTIONS = {
    "sum": (ops.sum, np.sum, X, "float32"),
    "prod": (ops.prod, np.prod, X, "float32"),
    "mean": (ops.mean, np.mean, X, "float32"),
    "max": (ops.max, np.max, X, "float32"),
    "min": (ops.min, np.min, X, "float32"),
    "amax": (ops.amax, np.amax, X, "float32"),
    "amin": (ops.amin, np.amin, X, "float32"),
    "all": (ops.all, np.all, XB, "bool"),
    "any": (ops.any, np.any, XB, "bool"),
    "std": (ops.std, np.std, X, "float32"),
    "var": (ops.var, np.var, X, "float32"),
    "ptp": (ops.ptp, np.ptp, X, "float32"),
    "median": (ops.median, np.median, X, "float32"),
    "nansum": (ops.nansum, np.nansum, XN, "float32"),
    "nanprod": (ops.nanprod, np.nanprod, XN, "float32"),
    "nanmean": (ops.nanmean, np.nanmean, XN, "float32"),
    "nanmax": (ops.nanmax, np.nanmax, XN, "float32"),
    "nanmin": (ops.nanmin, np.nanmin, XN, "float32"),
    "nanstd": (ops.nanstd, np.nanstd, XN, "float32"),
    "nanvar": (ops.nanvar, np.nanvar, XN, "float32"),
    "nanmedian": (ops.nanmedian, np.nanmedian, XN, "float32"),
}
AXES = [None, 0, -1, (0, 2), (0, 1, 2)]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_matches_numpy(name, axis, keepdims):
    op, ref, x, dtype = REDUCTIONS[name]
    out = op(x, axis=axis, keepdims=keepdims)
    want = ref(x, axis=axis, keepdims=keepdims)
    assert tuple(out.shape) == np.shape(want)
    assert ops.dtype(out) == dtype
    assert_allclose(out, want, loose=4)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_symbolic_spec(name):
    op, _, x, dtype = REDUCTIONS[name]
    inp = lamina.KerasTensor((None, 3, 4), ops.dtype(x))
    out = op(inp, axis=1)
    assert (out.shape, out.dtype) == ((None, 4), dtype)
    assert op(inp, axis=(0, 2), keepdims=True).shape == (1, 3, 1)
    assert op(inp).shape == ()


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_bad_axis_names_the_op(name):
    op, _, x, _ = REDUCTIONS[name]
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(x, axis=3)
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(lamina.KerasTensor((None, 3)), axis=(0, 0))
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(x, axis="a")


@pytest.mark.parametrize(
    ("op", "dtype", "expected"),
    [
        (ops.sum, "bool", "int32"),
        (ops.sum, "int8", "int32"),
        (ops.sum, "uint16", "int32"),
        pytest.param(ops.sum, "float16", "float16", marks=pytest.mark.half_precision),
        (ops.prod, "int16", "int32"),
        (ops.nansum, "int32", "int32"),
        (ops.nanprod, "uint8", "int32"),
        (ops.mean, "int32", "float32"),
        (ops.mean, "bool", "float32"),
        pytest.param(ops.mean, "float16", "float16", marks=pytest.mark.half_precision),
        (ops.std, "int32", "float32"),
        (ops.var, "uint8", "float32"),
        (ops.median, "int32", "float32"),
        (ops.nanmean, "int32", "float32"),
        (ops.nanstd, "int8", "float32"),
        (ops.nanvar, "int16", "float32"),
        (ops.nanmedian, "int32", "float32"),
        (ops.max, "int8", "int8"),
        (ops.min, "uint8", "uint8"),
        (ops.nanmax, "int32", "int32"),
        (ops.nanmin, "int32", "int32"),
        (ops.ptp, "int32", "int32"),
        (ops.all, "float32", "bool"),
        (ops.any, "int32", "bool"),
    ],
)
def test_reduction_output_dtypes(op, dtype, expected):
    x = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    out = op(x, axis=1)
    assert ops.dtype(out) == expected
    assert op(lamina.KerasTensor((None, 3), dtype), axis=1).dtype == expected
    ref = x.astype("float64")
    np_fn = getattr(np, op.__name__)
    if dtype == "bool" and op is ops.sum:
        ref = x
    assert_allclose(out, np_fn(ref, axis=1), dtype=expected)


def test_max_min_initial_and_empty():
    x = np.array([[1.0, 5.0], [3.0, 2.0]], "float32")
    assert_allclose(ops.max(x, axis=1, initial=4.0), np.max(x, axis=1, initial=4.0))
    assert_allclose(ops.min(x, axis=1, initial=2.5), np.min(x, axis=1, initial=2.5))
    empty = np.zeros((0, 2), "float32")
    assert_allclose(ops.max(empty, axis=0, initial=-1.0), [-1.0, -1.0])
    with pytest.raises(ValueError, match=r"`max`.*empty"):
        ops.max(empty, axis=0)
    with pytest.raises(TypeError, match=r"`min`.*initial"):
        ops.min(x, initial="a")


def test_nan_reductions_of_all_nan_slices():
    x = np.array([[np.nan, np.nan], [1.0, np.nan]], "float32")
    for op in (ops.nanmax, ops.nanmin, ops.nanmean, ops.nanmedian):
        assert_allclose(op(x, axis=1), [np.nan, 1.0])
    assert_allclose(ops.nanargmax(x, axis=1), [-1, 0])
    assert_allclose(ops.nanargmin(x, axis=1), [-1, 0])
    assert_allclose(ops.nansum(x, axis=1), [0.0, 1.0])


def test_ptp_rejects_bool():
    with pytest.raises(TypeError, match="`ptp`"):
        ops.ptp(XB)
    with pytest.raises(TypeError, match="`ptp`"):
        ops.ptp(lamina.KerasTensor((2,), "bool"))


# Index reductions: name -> (op, reference, input).
ARGS = {
    "argmax": (ops.argmax, np.argmax, X),
    "argmin": (ops.argmin, np.argmin, X),
    "nanargmax": (ops.nanargmax, _np_nanargmax, XN),
    "nanargmin": (ops.nanargmin, np.nanargmin, XN),
}


@pytest.mark.parametrize("name", sorted(ARGS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_reduction_matches_numpy(name, axis, keepdims):
    op, ref, x = ARGS[name]
    out = op(x, axis=axis, keepdims=keepdims)
    want = ref(x, axis=axis, keepdims=keepdims)
    assert ops.dtype(out) == "int32"
    assert tuple(out.shape) == want.shape
    np.testing.assert_array_equal(ops.convert_to_numpy(out), want)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_arg_reduction_spec_and_errors(name):
    op = ARGS[name][0]
    inp = lamina.KerasTensor((None, 3, 4), "float32")
    assert (op(inp, axis=1).shape, op(inp, axis=1).dtype) == ((None, 4), "int32")
    assert op(inp, keepdims=True).shape == (1, 1, 1)
    assert op(inp).shape == ()
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(X, axis=5)
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(X, axis=(0, 1))
    with pytest.raises(ValueError, match=rf"`{name}`.*empty"):
        op(np.zeros((0, 3), "float32"), axis=0)


def test_argmax_of_ints_and_ties_takes_first():
    x = np.array([[1, 3, 3], [2, 2, 0]], "int32")
    assert_allclose(ops.argmax(x, axis=1), [1, 0])
    assert_allclose(ops.argmin(x, axis=1), [0, 2])
    assert_allclose(ops.nanargmax(x, axis=1), [1, 0])


def test_count_nonzero():
    x = np.array([[0, 1, 2], [0, 0, 3]], "int32")
    for axis in (None, 0, 1, (0, 1)):
        out = ops.count_nonzero(x, axis=axis)
        assert ops.dtype(out) == "int32"
        assert_allclose(out, np.count_nonzero(x, axis=axis))
    spec = ops.count_nonzero(lamina.KerasTensor((None, 3), "float32"), axis=1)
    assert (spec.shape, spec.dtype) == ((None,), "int32")
    with pytest.raises(ValueError, match="`count_nonzero`"):
        ops.count_nonzero(x, axis=2)


# Cumulative ops: name -> (op, reference, input).
CUMULATIVE = {
    "cumsum": (ops.cumsum, np.cumsum, X),
    "cumprod": (ops.cumprod, np.cumprod, X),
    "nancumsum": (ops.nancumsum, np.nancumsum, XN),
    "nancumprod": (ops.nancumprod, np.nancumprod, XN),
}


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
def test_cumulative_matches_numpy(name, axis):
    op, ref, x = CUMULATIVE[name]
    out = op(x, axis=axis)
    want = ref(x, axis=axis)
    assert tuple(out.shape) == want.shape
    assert ops.dtype(out) == "float32"
    assert_allclose(out, want, loose=4)


@pytest.mark.parametrize("name", sorted(CUMULATIVE))
def test_cumulative_dtypes_spec_and_errors(name):
    op, ref, _ = CUMULATIVE[name]
    ints = np.array([[1, 2, 3], [4, 5, 6]], "int8")
    assert ops.dtype(op(ints, axis=1)) == "int32"
    assert ops.dtype(op(ints > 2, axis=1)) == "int32"
    out = op(ints, axis=0, dtype="float32")
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(ints.astype("float32"), axis=0))
    spec = op(lamina.KerasTensor((None, 3), "float16"), axis=1)
    assert (spec.shape, spec.dtype) == ((None, 3), "float16")
    assert op(lamina.KerasTensor((2, 3), "uint8")).shape == (6,)
    assert op(lamina.KerasTensor((None, 3), "uint8")).shape == (None,)
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(ints, axis=2)
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(ints, dtype="float99")


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("axis", [0, -1])
def test_diff_matches_numpy(n, axis):
    x = RNG.normal(size=(4, 3)).astype("float32")
    out = ops.diff(x, n=n, axis=axis)
    want = np.diff(x, n=n, axis=axis)
    assert tuple(out.shape) == want.shape
    assert_allclose(out, want, loose=4)
    ints = np.array([1, 4, 9, 16], "int32")
    assert ops.dtype(ops.diff(ints)) == "int32"
    assert_allclose(ops.diff(ints), np.diff(ints))


def test_diff_spec_and_errors():
    spec = ops.diff(lamina.KerasTensor((None, 5), "int32"), n=2)
    assert (spec.shape, spec.dtype) == ((None, 3), "int32")
    assert ops.diff(lamina.KerasTensor((None, 5)), axis=0).shape == (None, 5)
    with pytest.raises(ValueError, match=r"`diff`.*`n`"):
        ops.diff(X, n=-1)
    with pytest.raises(ValueError, match=r"`diff`.*rank"):
        ops.diff(np.float32(1.0))
    with pytest.raises(ValueError, match="`diff`"):
        ops.diff(X, axis=3)
    with pytest.raises(TypeError, match="`diff`"):
        ops.diff(XB)


def test_repeated_reductions_check_every_argument_and_input():
    # Reductions remember their checks per (arguments, input kind): a remembered call must
    # not answer for another axis, another `initial`, another dtype or a bad input.
    x = ops.convert_to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    for _ in range(2):
        assert tuple(ops.shape(ops.mean(x, axis=0))) == (3,)
        assert tuple(ops.shape(ops.mean(x, axis=1))) == (2,)
        assert tuple(ops.shape(ops.sum(x, axis=(0, 1), keepdims=True))) == (1, 1)
        assert tuple(ops.shape(ops.max(x, axis=[0]))) == (3,)  # a list axis: checked afresh
        assert ops.dtype(ops.mean(ops.cast(x, "int32"), axis=0)) == "float32"
        assert ops.dtype(ops.sum(ops.cast(x, "bool"))) == "int32"
        assert ops.dtype(ops.any(x, axis=1)) == "bool"
        expected = np.log(np.exp(np.arange(6.0).reshape(2, 3)).sum(1))
        assert_allclose(ops.logsumexp(x, axis=1), expected)
        with pytest.raises(ValueError, match="axis"):
            ops.mean(x, axis=2)
    empty = ops.zeros((0, 3))
    for _ in range(2):
        assert tuple(ops.shape(ops.max(empty, axis=1))) == (0,)
        with pytest.raises(ValueError, match="empty axis"):
            ops.max(empty, axis=0)
        assert_allclose(ops.max(empty, axis=0, initial=-1.0), np.full(3, -1.0))
        with pytest.raises(TypeError, match="bool"):
            ops.ptp(ops.cast(x, "bool"), axis=0)
