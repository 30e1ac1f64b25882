"""Quantiles, sorting, searching, counting and correlation against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)
X = RNG.normal(size=(3, 4, 5)).astype("float32")
XN = X.copy()
XN[0, 1, 2] = XN[2, 3, 0] = np.nan


def _np(x):
    return ops.convert_to_numpy(x)


# name -> (op, reference, input, q scale)
QUANTILES = {
    "quantile": (ops.quantile, np.quantile, X, 1.0),
    "percentile": (ops.percentile, np.percentile, X, 100.0),
    "nanquantile": (ops.nanquantile, np.nanquantile, XN, 1.0),
    "nanpercentile": (ops.nanpercentile, np.nanpercentile, XN, 100.0),
}


@pytest.mark.parametrize("name", sorted(QUANTILES))
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize(
    ("q", "axis", "keepdims"),
    [(0.3, None, False), ([0.1, 0.5, 1.0], 1, False), (0.75, (0, 2), True), ([0.0, 0.4], -1, True)],
    ids=str,
)
def test_quantile_family_matches_numpy(name, method, q, axis, keepdims):
    op, ref, x, scale = QUANTILES[name]
    qs = np.asarray(q) * scale
    out = op(x, qs, axis=axis, method=method, keepdims=keepdims)
    want = ref(x.astype("float64"), qs, axis=axis, method=method, keepdims=keepdims)
    assert tuple(out.shape) == want.shape
    assert ops.dtype(out) == "float32"
    assert_allclose(out, want, loose=4)


@pytest.mark.parametrize("name", sorted(QUANTILES))
def test_quantile_family_spec_dtype_and_errors(name):
    op, ref, _, scale = QUANTILES[name]
    inp = lamina.KerasTensor((None, 4, 5), "int32")
    spec = op(inp, [0.5 * scale, 0.1 * scale], axis=1)
    assert (spec.shape, spec.dtype) == ((2, None, 5), "float32")
    assert op(inp, 0.5 * scale, axis=(0, 2), keepdims=True).shape == (1, 4, 1)
    ints = np.array([[1, 2, 3, 4]], "int32")
    out = op(ints, 0.5 * scale, axis=1)
    assert ops.dtype(out) == "float32"
    assert_allclose(out, ref(ints, 0.5 * scale, axis=1))
    with pytest.raises(ValueError, match=rf"`{name}`.*`q`"):
        op(X, 1.5 * scale)
    with pytest.raises(ValueError, match=rf"`{name}`.*`method`"):
        op(X, 0.5, method="cubic")
    with pytest.raises(ValueError, match=rf"`{name}`.*`q`"):
        op(X, np.full((2, 2), 0.5, "float32"))
    with pytest.raises(ValueError, match=f"`{name}`"):
        op(X, 0.5, axis=4)


def test_quantile_accepts_a_tensor_q():
    q = ops.convert_to_tensor([0.25, 0.5])
    assert_allclose(ops.quantile(X, q, axis=0), np.quantile(X, [0.25, 0.5], axis=0))
    assert_allclose(ops.percentile(X, q * 100, axis=0), np.quantile(X, [0.25, 0.5], axis=0))


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_average_matches_numpy(axis):
    x = RNG.normal(size=(3, 4)).astype("float32")
    w_full = RNG.uniform(0.5, 1.0, size=(3, 4)).astype("float32")
    assert_allclose(ops.average(x, axis=axis), np.average(x, axis=axis))
    assert_allclose(ops.average(x, axis=axis, weights=w_full), np.average(x, axis, w_full))
    if axis is not None:
        w = RNG.uniform(0.5, 1.0, size=(x.shape[axis],)).astype("float32")
        assert_allclose(ops.average(x, axis=axis, weights=w), np.average(x, axis, w))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("int32", "float16", marks=pytest.mark.half_precision),
        ("float16", "float32"),
        ("int8", "int32"),
        ("bool", "int8"),
    ],
)
def test_average_promotes_by_the_shared_lattice(a, b):
    x = np.ones((2, 3), a)
    w = np.ones((2, 3), b)
    common = dtypes.result_type(a, b)
    expected = common if dtypes.is_float_dtype(common) else "float32"
    assert ops.dtype(ops.average(x, axis=1, weights=w)) == expected
    spec = ops.average(lamina.KerasTensor((None, 3), a), 1, lamina.KerasTensor((None, 3), b))
    assert (spec.shape, spec.dtype) == ((None,), expected)


def test_average_errors():
    with pytest.raises(ValueError, match=r"`average`.*weights"):
        ops.average(np.ones((2, 3), "float32"), axis=1, weights=np.ones((2,), "float32"))
    with pytest.raises(ValueError, match=r"`average`.*weights"):
        ops.average(np.ones((2, 3), "float32"), weights=np.ones((3,), "float32"))
    with pytest.raises(ValueError, match="`average`"):
        ops.average(np.ones((2, 3), "float32"), axis=2)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_and_argsort_match_numpy(axis):
    x = RNG.permutation(24).reshape(2, 3, 4).astype("float32")
    out = ops.sort(x, axis=axis)
    assert_allclose(out, np.sort(x, axis=axis))
    assert ops.dtype(out) == "float32"
    idx = ops.argsort(x, axis=axis)
    assert ops.dtype(idx) == "int32"
    np.testing.assert_array_equal(_np(idx), np.argsort(x, axis=axis, kind="stable"))
    ties = np.array([2, 1, 2, 1, 0], "int32")
    np.testing.assert_array_equal(_np(ops.argsort(ties)), np.argsort(ties, kind="stable"))


def test_sort_family_spec_and_errors():
    inp = lamina.KerasTensor((None, 4), "int8")
    assert (ops.sort(inp).shape, ops.sort(inp).dtype) == ((None, 4), "int8")
    assert (ops.argsort(inp, axis=0).shape, ops.argsort(inp).dtype) == ((None, 4), "int32")
    assert ops.sort(lamina.KerasTensor((2, 4)), axis=None).shape == (8,)
    assert ops.argpartition(inp, 2).dtype == "int32"
    for op in (ops.sort, ops.argsort):
        name = op.__name__
        with pytest.raises(ValueError, match=f"`{name}`"):
            op(X, axis=3)
        with pytest.raises(ValueError, match=rf"`{name}`.*rank"):
            op(np.float32(1.0))
        with pytest.raises(TypeError, match=f"`{name}`"):
            op(np.ones(3, "complex64"))


@pytest.mark.parametrize(("kth", "axis"), [(0, -1), (2, -1), (-1, 0), (1, 1)])
def test_argpartition_partitions(kth, axis):
    x = RNG.permutation(60).reshape(3, 4, 5).astype("float32")
    idx = ops.argpartition(x, kth, axis=axis)
    assert ops.dtype(idx) == "int32"
    assert tuple(idx.shape) == x.shape
    part = np.take_along_axis(x, _np(idx).astype("int64"), axis=axis)
    ordered = np.sort(x, axis=axis)
    k = kth % x.shape[axis]
    pivot = np.take(ordered, [k], axis=axis)
    np.testing.assert_array_equal(np.take(part, [k], axis=axis), pivot)
    assert np.all(np.take(part, range(k), axis=axis) <= pivot)
    assert np.all(np.take(part, range(k + 1, x.shape[axis]), axis=axis) >= pivot)


def test_argpartition_errors():
    with pytest.raises(ValueError, match=r"`argpartition`.*`kth`"):
        ops.argpartition(X, 5)
    with pytest.raises(TypeError, match=r"`argpartition`.*`kth`"):
        ops.argpartition(X, 1.5)
    with pytest.raises(ValueError, match="`argpartition`"):
        ops.argpartition(X, 0, axis=3)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(side):
    seq = np.array([1.0, 2.0, 2.0, 5.0, 7.0], "float32")
    values = np.array([[0.0, 2.0, 6.0], [7.0, 8.0, 2.5]], "float32")
    out = ops.searchsorted(seq, values, side=side)
    assert ops.dtype(out) == "int32"
    np.testing.assert_array_equal(_np(out), np.searchsorted(seq, values, side=side))
    mixed = ops.searchsorted(seq.astype("int32"), values, side=side)
    np.testing.assert_array_equal(_np(mixed), np.searchsorted(seq, values, side=side))
    spec = ops.searchsorted(lamina.KerasTensor((None,)), lamina.KerasTensor((None, 3), "int8"))
    assert (spec.shape, spec.dtype) == ((None, 3), "int32")


def test_searchsorted_errors():
    with pytest.raises(ValueError, match=r"`searchsorted`.*`side`"):
        ops.searchsorted(np.ones(3, "float32"), np.ones(2, "float32"), side="middle")
    with pytest.raises(ValueError, match=r"`searchsorted`.*sorted_sequence"):
        ops.searchsorted(np.ones((2, 3), "float32"), np.ones(2, "float32"))


def test_digitize_matches_numpy():
    bins = np.array([-1.0, 0.0, 0.5, 2.0], "float32")
    x = np.array([[-2.0, -1.0, 0.2], [0.5, 1.9, 3.0]], "float32")
    out = ops.digitize(x, bins)
    assert ops.dtype(out) == "int32"
    np.testing.assert_array_equal(_np(out), np.digitize(x, bins))
    int_bins = np.array([0, 1, 2], "int32")
    np.testing.assert_array_equal(_np(ops.digitize(x, int_bins)), np.digitize(x, int_bins))
    spec = ops.digitize(lamina.KerasTensor((None, 2)), lamina.KerasTensor((4,), "int32"))
    assert (spec.shape, spec.dtype) == ((None, 2), "int32")
    with pytest.raises(ValueError, match=r"`digitize`.*bins"):
        ops.digitize(x, np.ones((2, 2), "float32"))


def test_bincount_matches_numpy():
    x = np.array([0, 1, 1, 3, 5, 1], "int32")
    w = RNG.uniform(size=6).astype("float32")
    out = ops.bincount(x)
    assert ops.dtype(out) == "int32"
    np.testing.assert_array_equal(_np(out), np.bincount(x))
    np.testing.assert_array_equal(_np(ops.bincount(x, minlength=9)), np.bincount(x, minlength=9))
    weighted = ops.bincount(x, weights=w)
    assert ops.dtype(weighted) == "float32"
    assert_allclose(weighted, np.bincount(x, weights=w))
    rows = np.array([[0, 1, 1], [2, 2, 0]], "int32")
    want = np.stack([np.bincount(r, minlength=3) for r in rows])
    np.testing.assert_array_equal(_np(ops.bincount(rows)), want)
    spec = ops.bincount(lamina.KerasTensor((None, 3), "int32"))
    assert (spec.shape, spec.dtype) == ((None, None), "int32")
    weighted_spec = ops.bincount(lamina.KerasTensor((4,), "int32"), lamina.KerasTensor((4,)))
    assert weighted_spec.dtype == "float32"


def test_bincount_errors():
    with pytest.raises(TypeError, match=r"`bincount`.*integer"):
        ops.bincount(np.ones(3, "float32"))
    with pytest.raises(ValueError, match=r"`bincount`.*rank"):
        ops.bincount(np.ones((1, 1, 1), "int32"))
    with pytest.raises(ValueError, match=r"`bincount`.*weights"):
        ops.bincount(np.ones(3, "int32"), weights=np.ones(2, "float32"))
    with pytest.raises(ValueError, match=r"`bincount`.*minlength"):
        ops.bincount(np.ones(3, "int32"), minlength=-1)
    with pytest.raises(ValueError, match=r"`bincount`.*sparse"):
        ops.bincount(np.ones(3, "int32"), sparse=True)


@pytest.mark.parametrize(
    ("bins", "range_"), [(10, None), (4, (-1.0, 1.0)), (1, None), (7, (0.0, 3.0))]
)
def test_histogram_matches_numpy(bins, range_):
    x = RNG.normal(size=(50,)).astype("float32")
    counts, edges = ops.histogram(x, bins=bins, range=range_)
    want_counts, want_edges = np.histogram(x, bins=bins, range=range_)
    assert (ops.dtype(counts), ops.dtype(edges)) == ("int32", "float32")
    np.testing.assert_array_equal(_np(counts), want_counts)
    assert_allclose(edges, want_edges)


def test_histogram_spec_and_errors():
    counts, edges = ops.histogram(lamina.KerasTensor((None,), "int32"), bins=3)
    assert (counts.shape, counts.dtype, edges.shape, edges.dtype) == (
        (3,),
        "int32",
        (4,),
        "float32",
    )
    with pytest.raises(ValueError, match=r"`histogram`.*rank"):
        ops.histogram(np.ones((2, 2), "float32"))
    with pytest.raises(ValueError, match=r"`histogram`.*bins"):
        ops.histogram(np.ones(3, "float32"), bins=0)
    with pytest.raises(ValueError, match=r"`histogram`.*range"):
        ops.histogram(np.ones(3, "float32"), range=(2.0, 1.0))


def test_corrcoef_matches_numpy():
    x = RNG.normal(size=(3, 6)).astype("float32")
    out = ops.corrcoef(x)
    assert (tuple(out.shape), ops.dtype(out)) == ((3, 3), "float32")
    assert_allclose(out, np.corrcoef(x), loose=4)
    ints = np.array([[1, 2, 4], [3, 1, 0]], "int32")
    assert ops.dtype(ops.corrcoef(ints)) == "float32"
    assert_allclose(ops.corrcoef(ints), np.corrcoef(ints), loose=4)
    assert_allclose(ops.corrcoef(x[0]), np.corrcoef(x[0]))
    spec = ops.corrcoef(lamina.KerasTensor((None, 5), "int8"))
    assert (spec.shape, spec.dtype) == ((None, None), "float32")
    with pytest.raises(ValueError, match=r"`corrcoef`.*rank"):
        ops.corrcoef(np.ones((2, 2, 2), "float32"))


@pytest.mark.parametrize(
    ("x1", "x2", "kwargs"),
    [
        ([1.0, 2.0], [1.0, 2.0 + 1e-7], {}),
        ([1.0, 2.0], [1.0, 2.1], {}),
        ([1.0, 2.0], [1.0, 2.1], {"atol": 0.2}),
        ([1.0, 100.0], [1.0, 101.0], {"rtol": 0.05}),
        ([1.0, np.nan], [1.0, np.nan], {}),
        ([1.0, np.nan], [1.0, np.nan], {"equal_nan": True}),
        ([np.inf, 1.0], [np.inf, 1.0], {}),
        ([[1.0], [2.0]], [1.0, 1.0], {}),
    ],
)
def test_allclose_matches_numpy(x1, x2, kwargs):
    a, b = np.asarray(x1, "float32"), np.asarray(x2, "float32")
    out = ops.allclose(a, b, **kwargs)
    assert (ops.dtype(out), tuple(out.shape)) == ("bool", ())
    assert bool(_np(out)) == np.allclose(a, b, **kwargs)


@pytest.mark.half_precision
def test_allclose_promotes_spec_and_errors():
    ints = np.array([1, 2], "int32")
    assert bool(_np(ops.allclose(ints, np.array([1.0, 2.0], "float16"))))
    assert not bool(_np(ops.allclose(ints, np.array([1, 3], "int8"))))
    spec = ops.allclose(lamina.KerasTensor((None, 3)), lamina.KerasTensor((3,), "int8"))
    assert (spec.shape, spec.dtype) == ((), "bool")
    with pytest.raises(ValueError, match=r"`allclose`.*broadcast"):
        ops.allclose(np.ones(3, "float32"), np.ones(2, "float32"))
    with pytest.raises(ValueError, match=r"`allclose`.*rtol"):
        ops.allclose(np.ones(3, "float32"), np.ones(3, "float32"), rtol=-1.0)


def test_unique_matches_numpy():
    x = np.array([[3, 1, 3], [2, 1, 5]], "int32")
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    out = ops.unique(x)
    np.testing.assert_array_equal(_np(out), values)
    v, i, c = ops.unique(x, return_inverse=True, return_counts=True)
    assert (ops.dtype(v), ops.dtype(i), ops.dtype(c)) == ("int32", "int32", "int32")
    np.testing.assert_array_equal(_np(v), values)
    np.testing.assert_array_equal(_np(i), inverse)
    np.testing.assert_array_equal(_np(c), counts)
    v, c = ops.unique(x, return_counts=True, size=6)
    np.testing.assert_array_equal(_np(v), np.concatenate([values, [1, 1]]))
    np.testing.assert_array_equal(_np(c), np.concatenate([counts, [0, 0]]))
    v = ops.unique(x, size=6, fill_value=-1)
    np.testing.assert_array_equal(_np(v), np.concatenate([values, [-1, -1]]))
    np.testing.assert_array_equal(_np(ops.unique(x, size=2)), values[:2])


def test_unique_along_an_axis():
    x = np.array([[3, 1], [1, 2], [3, 1], [0, 9]], "float32")
    values, inverse, counts = np.unique(x, axis=0, return_inverse=True, return_counts=True)
    v, i, c = ops.unique(x, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(v), values)
    np.testing.assert_array_equal(_np(i), inverse.reshape(-1))
    np.testing.assert_array_equal(_np(c), counts)
    np.testing.assert_array_equal(_np(ops.unique(x.T, axis=1)), np.unique(x.T, axis=1))


def test_unique_spec_and_errors():
    inp = lamina.KerasTensor((None, 3), "int8")
    v, i, c = ops.unique(inp, return_inverse=True, return_counts=True)
    assert (v.shape, v.dtype, i.shape, i.dtype, c.shape) == (
        (None,),
        "int8",
        (None, 3),
        "int32",
        (None,),
    )
    v, i = ops.unique(inp, axis=1, return_inverse=True, size=2)
    assert (v.shape, i.shape) == ((None, 2), (3,))
    with pytest.raises(ValueError, match="`unique`"):
        ops.unique(np.ones(3, "float32"), axis=1)
    with pytest.raises(ValueError, match=r"`unique`.*size"):
        ops.unique(np.ones(3, "float32"), size=-2)
    with pytest.raises(TypeError, match=r"`unique`.*fill_value"):
        ops.unique(np.ones(3, "float32"), size=4, fill_value="x")
