"""Activations and encodings against NumPy: eager values, symbolic specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import ops
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
X = (RNG.normal(size=(3, 4)) * 3).astype("float32")
X[0, :] = [-1.0, 1.0, 0.0, -3.0]  # the kinks of the piecewise activations
X64 = X.astype("float64")

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _sigmoid(x):
    return special.expit(x)


# (op, kwargs, NumPy reference on float64)
ELEMENTWISE = [
    (ops.relu, {}, lambda x: np.maximum(x, 0)),
    (ops.relu6, {}, lambda x: np.clip(x, 0, 6)),
    (ops.sigmoid, {}, _sigmoid),
    (ops.sparse_sigmoid, {}, lambda x: np.clip((x + 1) / 2, 0, 1)),
    (ops.softplus, {}, lambda x: np.logaddexp(0, x)),
    (ops.softsign, {}, lambda x: x / (1 + np.abs(x))),
    (ops.sparse_plus, {}, lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    (ops.silu, {}, lambda x: x * _sigmoid(x)),
    (ops.swish, {}, lambda x: x * _sigmoid(x)),
    (ops.log_sigmoid, {}, lambda x: -np.logaddexp(0, -x)),
    (ops.hard_sigmoid, {}, lambda x: np.clip(x + 3, 0, 6) / 6),
    (ops.hard_silu, {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (ops.hard_swish, {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (ops.selu, {}, lambda x: SELU_SCALE * _elu(x, SELU_ALPHA)),
    (ops.tanh_shrink, {}, lambda x: x - np.tanh(x)),
    (ops.hard_tanh, {}, lambda x: np.clip(x, -1, 1)),
    (ops.soft_shrink, {"threshold": 1.0}, lambda x: np.sign(x) * np.maximum(np.abs(x) - 1, 0)),
    (ops.hard_shrink, {"threshold": 1.0}, lambda x: np.where(np.abs(x) > 1, x, 0)),
    (ops.squareplus, {"b": 2}, lambda x: (x + np.sqrt(x * x + 2)) / 2),
    (ops.leaky_relu, {}, lambda x: np.where(x >= 0, x, 0.2 * x)),
    (ops.leaky_relu, {"negative_slope": 0.5}, lambda x: np.where(x >= 0, x, 0.5 * x)),
    (ops.elu, {"alpha": 0.5}, lambda x: _elu(x, 0.5)),
    (ops.celu, {"alpha": 2.0}, lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2))),
    (ops.gelu, {}, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    (ops.gelu, {"approximate": False}, lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2)))),
    (ops.threshold, {"threshold": 0.5, "default_value": -2.0}, lambda x: np.where(x > 0.5, x, -2)),
]
IDS = [f"{op.__name__}-{'-'.join(map(str, kw.values()))}" for op, kw, _ in ELEMENTWISE]
NAMES = sorted({op.__name__ for op, _, _ in ELEMENTWISE})


@pytest.mark.parametrize(("op", "kwargs", "ref"), ELEMENTWISE, ids=IDS)
def test_activation_matches_numpy(op, kwargs, ref):
    out = op(X, **kwargs)
    assert ops.dtype(out) == "float32"
    assert tuple(out.shape) == X.shape
    assert_allclose(out, ref(X64))


@pytest.mark.parametrize(("op", "kwargs", "ref"), ELEMENTWISE, ids=IDS)
def test_activation_promotes_ints(op, kwargs, ref):
    ints = np.arange(-3, 5, dtype="int32")
    out = op(ints, **kwargs)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(ints.astype("float64")))


@pytest.mark.half_precision
@pytest.mark.parametrize(("op", "kwargs", "ref"), ELEMENTWISE, ids=IDS)
def test_activation_keeps_half(op, kwargs, ref):
    half = op(X.astype("float16"), **kwargs)
    assert ops.dtype(half) == "float16"
    assert_allclose(half, ref(X.astype("float16").astype("float64")), loose=5)


@pytest.mark.parametrize(("op", "kwargs", "ref"), ELEMENTWISE, ids=IDS)
def test_activation_symbolic_spec(op, kwargs, ref):
    out = op(lamina.KerasTensor((None, 4), "int8"), **kwargs)
    assert (out.shape, out.dtype) == ((None, 4), "float32")
    out = op(lamina.Input((5,), dtype="bfloat16"), **kwargs)
    assert (out.shape, out.dtype) == ((None, 5), "bfloat16")


@pytest.mark.parametrize("name", NAMES)
def test_activation_rejects_complex(name):
    op = getattr(ops, name)
    args = (0.0, 1.0) if name == "threshold" else ()
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(np.array([1 + 2j], dtype="complex64"), *args)
    with pytest.raises(TypeError, match=f"`{name}`"):
        op(lamina.KerasTensor((2,), "complex64"), *args)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: ops.leaky_relu(X, negative_slope="a"), TypeError, "leaky_relu"),
        (lambda: ops.soft_shrink(X, threshold=-1.0), ValueError, "soft_shrink"),
        (lambda: ops.hard_shrink(X, threshold=-1.0), ValueError, "hard_shrink"),
        (lambda: ops.squareplus(X, b=-1), ValueError, "squareplus"),
        (lambda: ops.elu(X, alpha=None), TypeError, "elu"),
        (lambda: ops.celu(X, alpha=0.0), ValueError, "celu"),
        (lambda: ops.gelu(X, approximate="yes"), TypeError, "gelu"),
        (lambda: ops.threshold(X, "a", 0.0), TypeError, "threshold"),
    ],
)
def test_activation_bad_arguments(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()


# Along-axis activations.


def _softmax(x, axis):
    return special.softmax(x, axis=axis)


def _sparsemax(x, axis):
    z = np.moveaxis(x, axis, -1)
    out = np.zeros_like(z)
    for idx in np.ndindex(z.shape[:-1]):
        v = np.sort(z[idx])[::-1]
        cs = np.cumsum(v)
        k = np.arange(1, len(v) + 1)
        kz = k[1 + k * v > cs].max()
        out[idx] = np.maximum(z[idx] - (cs[kz - 1] - 1) / kz, 0)
    return np.moveaxis(out, -1, axis)


def _glu(x, axis):
    a, b = np.split(x, 2, axis=axis)
    return a * _sigmoid(b)


X3 = RNG.normal(size=(2, 3, 4)).astype("float32")
AXIS_CASES = [
    (ops.softmax, -1, lambda x: _softmax(x, -1)),
    (ops.softmax, 0, lambda x: _softmax(x, 0)),
    (ops.softmax, (0, 2), lambda x: _softmax(x, (0, 2))),
    (ops.softmax, None, lambda x: _softmax(x, None)),
    (ops.log_softmax, -1, lambda x: special.log_softmax(x, axis=-1)),
    (ops.log_softmax, 1, lambda x: special.log_softmax(x, axis=1)),
    (ops.log_softmax, (1, 2), lambda x: special.log_softmax(x, axis=(1, 2))),
    (ops.sparsemax, -1, lambda x: _sparsemax(x * 2, -1)),
    (ops.sparsemax, 1, lambda x: _sparsemax(x * 2, 1)),
    (ops.glu, -1, lambda x: _glu(x, -1)),
    (ops.glu, 0, lambda x: _glu(x, 0)),
]


@pytest.mark.parametrize(("op", "axis", "ref"), AXIS_CASES)
def test_axis_activation_matches_numpy(op, axis, ref):
    x = X3 * 2 if op is ops.sparsemax else X3
    out = op(x, axis=axis)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(X3.astype("float64")))
    ints = op(np.arange(24, dtype="int32").reshape(2, 3, 4) % 5, axis=axis)
    assert ops.dtype(ints) == "float32"


@pytest.mark.parametrize(
    ("op", "axis", "shape"),
    [
        (ops.softmax, -1, (None, 3, 4)),
        (ops.log_softmax, (0, 1), (None, 3, 4)),
        (ops.sparsemax, 1, (None, 3, 4)),
        (ops.glu, -1, (None, 3, 2)),
        (ops.glu, 0, (None, 3, 4)),
    ],
)
def test_axis_activation_symbolic_spec(op, axis, shape):
    out = op(lamina.KerasTensor((None, 3, 4), "int16"), axis=axis)
    assert (out.shape, out.dtype) == (shape, "float32")
    assert op(lamina.KerasTensor((2, 3, 4), "float16"), axis=axis).dtype == "float16"


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: ops.softmax(X3, axis=3), ValueError, "softmax"),
        (lambda: ops.softmax(np.float32(1.0)), ValueError, "softmax"),
        (lambda: ops.log_softmax(X3, axis=(0, 0)), ValueError, "log_softmax"),
        (lambda: ops.sparsemax(X3, axis=(0, 1)), TypeError, "sparsemax"),
        (lambda: ops.glu(X3, axis=1), ValueError, "glu"),
        (lambda: ops.glu(lamina.KerasTensor((None, 3)), axis=-1), ValueError, "glu"),
        (lambda: ops.softmax(lamina.KerasTensor((2,), "complex64")), TypeError, "softmax"),
    ],
)
def test_axis_activation_errors(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()


# Encodings.


def _one_hot(x, n, axis=-1):
    hot = (np.expand_dims(x, -1) == np.arange(n)).astype("float32")
    return np.moveaxis(hot, -1, axis)


IDX = np.array([[0, 2, 1], [3, -1, 2]], dtype="int32")


@pytest.mark.parametrize(
    ("axis", "dtype", "x"),
    [
        (-1, None, IDX),
        (0, "int32", IDX),
        pytest.param(1, "float16", IDX.astype("int8"), marks=pytest.mark.half_precision),
        (-1, "bool", IDX),
    ],
)
def test_one_hot_matches_numpy(axis, dtype, x):
    out = ops.one_hot(x, 3, axis=axis, dtype=dtype)
    expected_dtype = dtype or "float32"
    assert ops.dtype(out) == expected_dtype
    assert_allclose(out, _one_hot(x, 3, axis).astype(expected_dtype))


def test_one_hot_symbolic_spec_and_float_indices():
    out = ops.one_hot(lamina.KerasTensor((None, 3), "int32"), 5, axis=1, dtype="int8")
    assert (out.shape, out.dtype) == ((None, 5, 3), "int8")
    assert_allclose(ops.one_hot(np.array([1.0, 0.0]), 2), np.eye(2)[[1, 0]])


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (np.array([0, 2, 2], "int32"), [1, 0, 1, 0]),
        (np.array([[0, 3], [1, 1]], "uint8"), [[1, 0, 0, 1], [0, 1, 0, 0]]),
    ],
)
def test_multi_hot_matches_numpy(x, expected):
    out = ops.multi_hot(x, 4)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, np.array(expected, "float32"))
    assert_allclose(ops.multi_hot(x, num_tokens=4, dtype="int32"), np.array(expected, "int32"))


def test_multi_hot_symbolic_spec():
    out = ops.multi_hot(lamina.KerasTensor((None, 5), "int32"), 7)
    assert (out.shape, out.dtype) == ((None, 7), "float32")
    assert ops.multi_hot(lamina.KerasTensor((5,), "int32"), 7, dtype="bool").shape == (7,)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: ops.one_hot(IDX, 0), ValueError, "one_hot"),
        (lambda: ops.one_hot(IDX, "3"), TypeError, "one_hot"),
        (lambda: ops.one_hot(IDX, 3, axis=3), ValueError, "one_hot"),
        (lambda: ops.one_hot(IDX, 3, sparse=True), ValueError, "one_hot"),
        (lambda: ops.one_hot(np.array([1j]), 3), TypeError, "one_hot"),
        (lambda: ops.multi_hot(IDX), ValueError, "multi_hot"),
        (lambda: ops.multi_hot(np.int32(1), 3), ValueError, "multi_hot"),
        (lambda: ops.multi_hot(lamina.KerasTensor((2,), "complex64"), 3), TypeError, "multi_hot"),
    ],
)
def test_encoding_errors(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()


def test_polar_matches_numpy():
    r = np.abs(X)
    theta = RNG.normal(size=(4,)).astype("float32")
    out = ops.polar(r, theta)
    assert ops.dtype(out) == "complex64"
    assert_allclose(out, r.astype("float64") * np.exp(1j * theta.astype("float64")))
    ints = ops.polar(np.array([2], "int32"), np.array([0.0], "float16"))
    assert ops.dtype(ints) == "complex64"
    assert_allclose(ints, np.array([2 + 0j]))


def test_polar_symbolic_spec_and_errors():
    out = ops.polar(lamina.KerasTensor((None, 1)), lamina.KerasTensor((3,)))
    assert (out.shape, out.dtype) == ((None, 3), "complex64")
    assert ops.polar(lamina.KerasTensor((2,), "float64"), 1.0).dtype == "complex128"
    with pytest.raises(ValueError, match="`polar`"):
        ops.polar(np.ones((2, 3), "float32"), np.ones((4,), "float32"))
    with pytest.raises(TypeError, match="`polar`"):
        ops.polar(np.ones((2,), "complex64"), np.ones((2,), "float32"))
