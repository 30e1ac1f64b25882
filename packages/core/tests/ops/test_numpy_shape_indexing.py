"""Indexing, gathering, selection and diagonal ops against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

X = np.arange(24, dtype="float32").reshape(2, 3, 4)
M = np.arange(12, dtype="int32").reshape(3, 4)
IDX = np.array([2, 0, -1], dtype="int32")
R = np.array([[1, 2], [0, 1]], dtype="int32")
T = lamina.KerasTensor

KEYS = [
    ("int", 1),
    ("neg_int", -1),
    ("tuple_ints", (1, 2)),
    ("slice", slice(1, None)),
    ("slice_step", (slice(None), slice(None, None, 2))),
    ("slice_neg_step", (slice(None), slice(None, None, -1))),
    ("slice_neg_step2", (0, slice(2, None, -2), slice(3, 0, -2))),
    ("slice_empty", slice(5, 1)),
    ("slice_out_of_range", (slice(-10, 10),)),
    ("ellipsis", (Ellipsis, 1)),
    ("ellipsis_mid", (0, Ellipsis, slice(1, 3))),
    ("newaxis", (None, 0, None)),
    ("newaxis_ellipsis", (Ellipsis, None)),
    ("int_array", np.array([1, 0, 1])),
    ("neg_int_array", (slice(None), np.array([-1, 0]))),
    ("int_array_2d", (slice(None), slice(None), np.array([[0, 3], [1, 2]]))),
    ("int_list", [1, 0]),
    ("array_then_int", (np.array([1, 0]), 2)),
    ("int_slice_array", (0, slice(None), np.array([3, 1]))),
    ("bool_mask_1d", np.array([True, False])),
    ("bool_mask_2d", (np.arange(24).reshape(2, 3, 4) % 5 == 0)[..., 0]),
    ("bool_mask_inner", (slice(None), np.array([True, False, True]))),
]


@pytest.mark.parametrize("key", [k for _, k in KEYS], ids=[n for n, _ in KEYS])
def test_get_item_matches_numpy(key):
    out = ops.get_item(X, key)
    expected = X[key]
    assert ops.convert_to_numpy(out).shape == expected.shape
    assert ops.dtype(out) == "float32"
    assert_allclose(out, expected)


def test_get_item_with_backend_tensor_index():
    index = ops.convert_to_tensor(np.array([2, 0], "int32"))
    assert_allclose(ops.get_item(M, (slice(None), index)), M[:, [2, 0]])


SYMBOLIC_KEYS = [
    ((0,), (3, 4)),
    ((slice(None), 1), (None, 4)),
    ((slice(1, None),), (None, 3, 4)),
    ((slice(None), slice(None, 2)), (None, 2, 4)),
    ((slice(None), slice(None, None, -1)), (None, 3, 4)),
    ((Ellipsis, None), (None, 3, 4, 1)),
    ((None, Ellipsis, 0), (1, None, 3)),
    ((slice(None), np.array([[0, 1]])), (None, 1, 2, 4)),
    ((slice(None), np.array([True, False, True])), (None, None, 4)),
    ((0, slice(None), np.array([1, 2])), (2, 3)),
]


@pytest.mark.parametrize(("key", "shape"), SYMBOLIC_KEYS)
def test_get_item_symbolic_spec(key, shape):
    t = T((None, 3, 4), "int8")
    out = t[key]
    assert (out.shape, out.dtype) == (shape, "int8")


def test_get_item_symbolic_tensor_index():
    out = ops.get_item(T((5, 4)), T((None,), "int32"))
    assert out.shape == (None, 4)


EAGER = [
    ("take", lambda: ops.take(X, IDX, 1), lambda: np.take(X, IDX, 1)),
    ("take_flat", lambda: ops.take(X, np.array([[0, 23]])), lambda: np.take(X, [[0, 23]])),
    ("take_scalar", lambda: ops.take(M, np.int32(2), 0), lambda: np.take(M, 2, 0)),
    # Rows of a 2-D table, as `Embedding` takes them: with and without negative indices.
    ("take_rows", lambda: ops.take(M, R, 0), lambda: np.take(M, R, 0)),
    ("take_rows_negative", lambda: ops.take(M, -1 - R, 0), lambda: np.take(M, -1 - R, 0)),
    (
        "take_along_axis",
        lambda: ops.take_along_axis(M, np.argsort(-M, 1).astype("int32"), 1),
        lambda: np.take_along_axis(M, np.argsort(-M, 1), 1),
    ),
    (
        "take_along_axis_bcast",
        lambda: ops.take_along_axis(M, np.array([[0, -1]], "int32"), 1),
        lambda: np.take_along_axis(M, np.array([[0, -1]] * 3), 1),
    ),
    (
        "take_along_axis_none",
        lambda: ops.take_along_axis(M, np.array([11, 0], "int32")),
        lambda: np.take_along_axis(M.ravel(), np.array([11, 0]), 0),
    ),
    ("where", lambda: ops.where(M > 5, M, -M), lambda: np.where(M > 5, M, -M)),
    ("where_bcast", lambda: ops.where(M[0] > 1, 1.5, M), lambda: np.where(M[0] > 1, 1.5, M)),
    ("where_int_cond", lambda: ops.where(M % 2, 1, 0), lambda: np.where(M % 2, 1, 0)),
    (
        "select",
        lambda: ops.select([M < 3, M > 8], [M, -M], 7),
        lambda: np.select([M < 3, M > 8], [M, -M], 7),
    ),
    (
        "select_bcast",
        lambda: ops.select([M[0] < 2], [np.float32(1.5)]),
        lambda: np.broadcast_to(np.select([M[0] < 2], [1.5]), (4,)),
    ),
    ("diag_1d", lambda: ops.diag(IDX), lambda: np.diag(IDX)),
    ("diag_1d_k", lambda: ops.diag(IDX, -2), lambda: np.diag(IDX, -2)),
    ("diag_2d", lambda: ops.diag(M), lambda: np.diag(M)),
    ("diag_2d_k", lambda: ops.diag(M, 2), lambda: np.diag(M, 2)),
    ("diag_2d_neg_k", lambda: ops.diag(M, -1), lambda: np.diag(M, -1)),
    ("diagflat", lambda: ops.diagflat(M[:2, :2]), lambda: np.diagflat(M[:2, :2])),
    ("diagflat_k", lambda: ops.diagflat(IDX, 1), lambda: np.diagflat(IDX, 1)),
    ("diagonal", lambda: ops.diagonal(M), lambda: np.diagonal(M)),
    ("diagonal_3d", lambda: ops.diagonal(X, 1, 2, 1), lambda: np.diagonal(X, 1, 2, 1)),
    ("diagonal_neg", lambda: ops.diagonal(X, -1, 0, 2), lambda: np.diagonal(X, -1, 0, 2)),
    ("tril", lambda: ops.tril(M), lambda: np.tril(M)),
    ("tril_k", lambda: ops.tril(X, -1), lambda: np.tril(X, -1)),
    ("triu", lambda: ops.triu(M, 1), lambda: np.triu(M, 1)),
    ("triu_bool", lambda: ops.triu(M > 2), lambda: np.triu(M > 2)),
]


@pytest.mark.parametrize(("name", "fn", "ref"), EAGER, ids=[c[0] for c in EAGER])
def test_indexing_op_matches_numpy(name, fn, ref):
    out = fn()
    expected = np.asarray(ref())
    assert ops.convert_to_numpy(out).shape == expected.shape
    if expected.dtype.kind in "iu":
        expected = expected.astype(ops.dtype(out))
    assert_allclose(out, expected)


def test_where_select_dtypes():
    assert ops.dtype(ops.where(M > 5, M, -M)) == "int32"
    assert ops.dtype(ops.where(M[0] > 1, 1.5, M)) == "float32"
    assert ops.dtype(ops.select([M < 3], [np.ones(4, "int8")], 0)) == "int8"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        ("uint8", "int8"),
        ("bool", "int16"),
    ],
)
def test_where_and_select_promote_by_the_shared_lattice(a, b):
    expected = dtypes.result_type(a, b)
    cond = np.array([True, False])
    x1, x2 = np.ones(2, a), np.zeros(2, b)
    assert ops.dtype(ops.where(cond, x1, x2)) == expected
    assert ops.dtype(ops.select([cond], [x1], x2)) == expected
    assert ops.where(T((None,), "bool"), T((2,), a), T((2,), b)).dtype == expected
    assert ops.select([T((None,), "bool")], [T((2,), a)], T((2,), b)).dtype == expected


@pytest.mark.parametrize("x", [M % 3, np.array([0, 2, 0, 1], "float32"), (M > 4)[None]])
def test_nonzero_matches_numpy(x):
    outs = ops.nonzero(x)
    refs = np.nonzero(x)
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs, strict=True):
        assert ops.dtype(out) == "int32"
        assert_allclose(out, ref.astype("int32"))


def test_where_with_only_condition_is_nonzero():
    outs = ops.where(M > 9)
    for out, ref in zip(outs, np.nonzero(M > 9), strict=True):
        assert_allclose(out, ref.astype("int32"))


@pytest.mark.parametrize(
    ("indices", "shape"),
    [(np.array([0, 5, 11], "int32"), (3, 4)), (np.array([[7, 3]], "int64"), (2, 2, 2)), (5, (6,))],
)
def test_unravel_index_matches_numpy(indices, shape):
    outs = ops.unravel_index(indices, shape)
    refs = np.unravel_index(indices, shape)
    assert len(outs) == len(shape)
    for out, ref in zip(outs, refs, strict=True):
        assert ops.dtype(out) == "int32"
        assert ops.convert_to_numpy(out).shape == np.shape(ref)
        assert_allclose(out, np.asarray(ref).astype("int32"))


SYMBOLIC = [
    ("take", lambda: ops.take(T((None, 5)), T((2, 3), "int32"), 1), (None, 2, 3), "float32"),
    ("take_flat", lambda: ops.take(T((None, 5)), T((4,), "int32")), (4,), "float32"),
    (
        "take_along_axis",
        lambda: ops.take_along_axis(T((None, 5)), T((1, 2), "int32"), 1),
        (None, 2),
        "float32",
    ),
    ("where", lambda: ops.where(T((None, 1), "bool"), T((3,), "int8"), 2), (None, 3), "int8"),
    (
        "select",
        lambda: ops.select([T((None, 1), "bool")], [T((4,), "int32")], 0),
        (None, 4),
        "int32",
    ),
    ("diag", lambda: ops.diag(T((3,), "int8"), 1), (4, 4), "int8"),
    ("diag_2d", lambda: ops.diag(T((3, 5)), 3), (2,), "float32"),
    ("diag_none", lambda: ops.diag(T((None, 5))), (None,), "float32"),
    ("diagflat", lambda: ops.diagflat(T((2, 3))), (6, 6), "float32"),
    ("diagonal", lambda: ops.diagonal(T((None, 3, 4)), 0, 1, 2), (None, 3), "float32"),
    ("tril", lambda: ops.tril(T((None, 3, 4))), (None, 3, 4), "float32"),
    ("triu", lambda: ops.triu(T((None, 3, 4)), 1), (None, 3, 4), "float32"),
]


@pytest.mark.parametrize(("name", "fn", "shape", "dtype"), SYMBOLIC, ids=[c[0] for c in SYMBOLIC])
def test_indexing_op_symbolic_spec(name, fn, shape, dtype):
    out = fn()
    assert (out.shape, out.dtype) == (shape, dtype)


def test_nonzero_and_unravel_index_symbolic_specs():
    outs = ops.nonzero(T((None, 3)))
    assert [(o.shape, o.dtype) for o in outs] == [((None,), "int32")] * 2
    outs = ops.unravel_index(T((None,), "int64"), (2, 3, 4))
    assert [(o.shape, o.dtype) for o in outs] == [((None,), "int32")] * 3


ERRORS = [
    ("get_item", lambda: ops.get_item(M, (0, 0, 0)), IndexError),
    ("get_item", lambda: ops.get_item(M, 5), IndexError),
    ("get_item", lambda: ops.get_item(M, (Ellipsis, Ellipsis)), IndexError),
    ("get_item", lambda: ops.get_item(M, slice(None, None, 0)), ValueError),
    ("get_item", lambda: ops.get_item(M, np.array([0.5])), TypeError),
    ("get_item", lambda: ops.get_item(M, (np.array([0]), np.array([1]))), ValueError),
    ("get_item", lambda: ops.get_item(M, np.array([True, False])), IndexError),
    ("get_item", lambda: T((None, 2))[:, 3], IndexError),
    ("take", lambda: ops.take(M, np.array([0.5]), 0), TypeError),
    ("take", lambda: ops.take(M, IDX, 2), ValueError),
    ("take_along_axis", lambda: ops.take_along_axis(M, IDX, 1), ValueError),
    ("take_along_axis", lambda: ops.take_along_axis(M, np.ones((2, 2), "int32")), ValueError),
    ("where", lambda: ops.where(M > 1, M), ValueError),
    ("where", lambda: ops.where(M > 1, M, np.ones(3)), ValueError),
    ("select", lambda: ops.select([M > 1], [M, M]), ValueError),
    ("select", lambda: ops.select([], []), ValueError),
    ("nonzero", lambda: ops.nonzero(np.float32(1)), ValueError),
    ("unravel_index", lambda: ops.unravel_index(IDX, (0, 2)), ValueError),
    ("unravel_index", lambda: ops.unravel_index(np.ones(2, "float32"), (2, 2)), TypeError),
    ("diag", lambda: ops.diag(X), ValueError),
    ("diagflat", lambda: ops.diagflat(M, 0.5), TypeError),
    ("diagonal", lambda: ops.diagonal(IDX), ValueError),
    ("diagonal", lambda: ops.diagonal(X, 0, 1, -2), ValueError),
    ("tril", lambda: ops.tril(IDX), ValueError),
    ("triu", lambda: ops.triu(T((3,))), ValueError),
]


@pytest.mark.parametrize(("name", "fn", "exc"), ERRORS, ids=[c[0] for c in ERRORS])
def test_indexing_op_bad_input_names_the_op(name, fn, exc):
    with pytest.raises(exc, match=f"`{name}`"):
        fn()
