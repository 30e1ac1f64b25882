"""Shape, joining and splitting ops against NumPy: values, symbolic specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

X = np.arange(24, dtype="float32").reshape(2, 3, 4)
M = np.arange(12, dtype="int32").reshape(3, 4)
V = np.array([3, 1, 2], dtype="int8")

# (id, lamina call, NumPy reference); the result must match in value, shape and dtype.
EAGER = [
    ("reshape", lambda m: X.reshape(6, -1), lambda: ops.reshape(X, (6, -1))),
    ("ravel", lambda m: np.ravel(X), lambda: ops.ravel(X)),
    ("broadcast_to", lambda m: np.broadcast_to(V, (2, 3)), lambda: ops.broadcast_to(V, (2, 3))),
    ("expand_dims", lambda m: np.expand_dims(X, 1), lambda: ops.expand_dims(X, 1)),
    (
        "expand_dims_tuple",
        lambda m: np.expand_dims(X, (0, -1)),
        lambda: ops.expand_dims(X, (0, -1)),
    ),
    ("squeeze", lambda m: np.squeeze(X[:1, :, :1]), lambda: ops.squeeze(X[:1, :, :1])),
    ("squeeze_axis", lambda m: np.squeeze(X[:1], 0), lambda: ops.squeeze(X[:1], axis=0)),
    ("transpose", lambda m: X.T, lambda: ops.transpose(X)),
    ("transpose_axes", lambda m: X.transpose(1, 0, 2), lambda: ops.transpose(X, (1, 0, 2))),
    ("moveaxis", lambda m: np.moveaxis(X, 0, -1), lambda: ops.moveaxis(X, 0, -1)),
    (
        "moveaxis_many",
        lambda m: np.moveaxis(X, (0, 1), (2, 0)),
        lambda: ops.moveaxis(X, (0, 1), (2, 0)),
    ),
    ("swapaxes", lambda m: np.swapaxes(X, 0, 2), lambda: ops.swapaxes(X, 0, 2)),
    ("flip", lambda m: np.flip(X), lambda: ops.flip(X)),
    ("flip_axis", lambda m: np.flip(X, (0, 2)), lambda: ops.flip(X, (0, 2))),
    ("fliplr", lambda m: np.fliplr(M), lambda: ops.fliplr(M)),
    ("flipud", lambda m: np.flipud(M), lambda: ops.flipud(M)),
    ("rot90", lambda m: np.rot90(M), lambda: ops.rot90(M)),
    ("rot90_k2", lambda m: np.rot90(X, 2, (1, 2)), lambda: ops.rot90(X, 2, (1, 2))),
    ("rot90_k3", lambda m: np.rot90(X, -1, (2, 0)), lambda: ops.rot90(X, -1, (2, 0))),
    ("rot90_k0", lambda m: np.rot90(M, 4), lambda: ops.rot90(M, 4)),
    ("roll", lambda m: np.roll(M, 5), lambda: ops.roll(M, 5)),
    ("roll_axis", lambda m: np.roll(X, -1, 2), lambda: ops.roll(X, -1, 2)),
    ("roll_axes", lambda m: np.roll(X, (1, 2), (0, 2)), lambda: ops.roll(X, (1, 2), (0, 2))),
    ("tile", lambda m: np.tile(V, 2), lambda: ops.tile(V, 2)),
    ("tile_more", lambda m: np.tile(V, (2, 1, 2)), lambda: ops.tile(V, (2, 1, 2))),
    ("tile_fewer", lambda m: np.tile(X, (2, 1)), lambda: ops.tile(X, (2, 1))),
    ("repeat", lambda m: np.repeat(M, 2), lambda: ops.repeat(M, 2)),
    ("repeat_axis", lambda m: np.repeat(X, 2, 1), lambda: ops.repeat(X, 2, axis=1)),
    (
        "repeat_list",
        lambda m: np.repeat(M, [1, 0, 2], axis=0),
        lambda: ops.repeat(M, [1, 0, 2], axis=0),
    ),
    ("pad", lambda m: np.pad(M, 1), lambda: ops.pad(M, 1)),
    (
        "pad_pairs",
        lambda m: np.pad(M, ((1, 0), (0, 2)), constant_values=7),
        lambda: ops.pad(M, ((1, 0), (0, 2)), constant_values=7),
    ),
    ("pad_bool", lambda m: np.pad(M > 3, 1), lambda: ops.pad(M > 3, 1)),
    ("pad_edge", lambda m: np.pad(M, (1, 2), "edge"), lambda: ops.pad(M, (1, 2), "edge")),
    ("pad_reflect", lambda m: np.pad(X, 2, "reflect"), lambda: ops.pad(X, 2, "reflect")),
    (
        "pad_symmetric",
        lambda m: np.pad(M, ((2, 1), (3, 0)), "symmetric"),
        lambda: ops.pad(M, ((2, 1), (3, 0)), "symmetric"),
    ),
    ("pad_wrap", lambda m: np.pad(M, 2, "wrap"), lambda: ops.pad(M, 2, "wrap")),
    ("view_same", lambda m: M.view("float32"), lambda: ops.view(M, "float32")),
    ("view_smaller", lambda m: M.view("int16"), lambda: ops.view(M, "int16")),
    (
        "view_larger",
        lambda m: M.astype("int16").view("int32"),
        lambda: ops.view(M.astype("int16"), "int32"),
    ),
    (
        "view_bool",
        lambda m: (M % 2).astype("uint8").view(bool),
        lambda: ops.view((M % 2).astype("uint8"), "bool"),
    ),
    ("view_none", lambda m: M, lambda: ops.view(M)),
    ("concatenate", lambda m: np.concatenate([X, X[:1]]), lambda: ops.concatenate([X, X[:1]])),
    (
        "concatenate_axis",
        lambda m: np.concatenate([M, M[:, :1]], -1),
        lambda: ops.concatenate([M, M[:, :1]], axis=-1),
    ),
    (
        "concatenate_none",
        lambda m: np.concatenate([M, V.astype("int32")], None),
        lambda: ops.concatenate([M, V], axis=None),
    ),
    ("stack", lambda m: np.stack([M, M], 1), lambda: ops.stack([M, M], axis=1)),
    ("stack_last", lambda m: np.stack([V, V], -1), lambda: ops.stack([V, V], axis=-1)),
    ("hstack_1d", lambda m: np.hstack([V, V]), lambda: ops.hstack([V, V])),
    ("hstack_2d", lambda m: np.hstack([M, M]), lambda: ops.hstack([M, M])),
    ("vstack_1d", lambda m: np.vstack([V, V]), lambda: ops.vstack([V, V])),
    ("vstack_2d", lambda m: np.vstack([M, M[:1]]), lambda: ops.vstack([M, M[:1]])),
    ("dstack_1d", lambda m: np.dstack([V, V]), lambda: ops.dstack([V, V])),
    ("dstack_2d", lambda m: np.dstack([M, M]), lambda: ops.dstack([M, M])),
    ("dstack_3d", lambda m: np.dstack([X, X]), lambda: ops.dstack([X, X])),
    ("append", lambda m: np.append(M, V.astype("int32")), lambda: ops.append(M, V)),
    ("append_axis", lambda m: np.append(M, M, 0), lambda: ops.append(M, M, axis=0)),
]


@pytest.mark.parametrize(("name", "ref", "fn"), EAGER, ids=[c[0] for c in EAGER])
def test_shape_op_matches_numpy(name, ref, fn):
    out = fn()
    expected = np.asarray(ref(None))
    got = ops.convert_to_numpy(out)
    assert got.shape == expected.shape
    assert ops.dtype(out) == dtypes.standardize_dtype(expected.dtype)
    assert_allclose(out, expected)


SPLITS = [
    ("split", lambda x: ops.split(x, 3, 1), lambda x: np.split(x, 3, 1)),
    ("split_list", lambda x: ops.split(x, [1, 4], 0), lambda x: np.split(x, [1, 4], 0)),
    ("split_neg", lambda x: ops.split(x, [-2], -1), lambda x: np.split(x, [-2], -1)),
    ("split_unsorted", lambda x: ops.split(x, [4, 2]), lambda x: np.split(x, [4, 2])),
    ("array_split", lambda x: ops.array_split(x, 4), lambda x: np.array_split(x, 4)),
    ("array_split_1", lambda x: ops.array_split(x, 4, 1), lambda x: np.array_split(x, 4, 1)),
    ("hsplit", lambda x: ops.hsplit(x, 2), lambda x: np.hsplit(x, 2)),
    ("vsplit", lambda x: ops.vsplit(x, [2]), lambda x: np.vsplit(x, [2])),
    ("dsplit", lambda x: ops.dsplit(x[None], 3), lambda x: np.dsplit(x[None], 3)),
]
SPLIT_INPUT = np.arange(30, dtype="float32").reshape(5, 6)


@pytest.mark.parametrize(("name", "fn", "ref"), SPLITS, ids=[c[0] for c in SPLITS])
def test_split_matches_numpy(name, fn, ref):
    outs = fn(SPLIT_INPUT)
    refs = ref(SPLIT_INPUT)
    assert len(outs) == len(refs)
    for out, expected in zip(outs, refs, strict=True):
        assert ops.convert_to_numpy(out).shape == expected.shape
        assert_allclose(out, expected)


def test_hsplit_1d():
    outs = ops.hsplit(np.arange(6, dtype="int32"), 3)
    assert [ops.convert_to_numpy(o).tolist() for o in outs] == [[0, 1], [2, 3], [4, 5]]


def test_ndim_is_a_python_int_and_size_an_int32_tensor():
    assert ops.ndim(X) == 3 and isinstance(ops.ndim(X), int)
    assert ops.ndim(lamina.KerasTensor((None, 2))) == 2
    size = ops.size(X)
    assert ops.dtype(size) == "int32"
    assert int(ops.convert_to_numpy(size)) == 24
    sym = ops.size(lamina.KerasTensor((None, 2)))
    assert (sym.shape, sym.dtype) == ((), "int32")


T = lamina.KerasTensor  # shape, dtype

# (id, lamina call on symbolic input(s), expected shape, expected dtype)
SYMBOLIC = [
    ("reshape", lambda: ops.reshape(T((None, 3, 4)), (-1, 12)), (None, 12), "float32"),
    ("ravel", lambda: ops.ravel(T((None, 3))), (None,), "float32"),
    ("ravel_known", lambda: ops.ravel(T((2, 3), "int8")), (6,), "int8"),
    ("broadcast_to", lambda: ops.broadcast_to(T((None, 1)), (2, 5)), (2, 5), "float32"),
    ("expand_dims", lambda: ops.expand_dims(T((None, 3)), (0, -1)), (1, None, 3, 1), "float32"),
    ("squeeze", lambda: ops.squeeze(T((None, 1, 3, 1))), (None, 3), "float32"),
    ("squeeze_axis", lambda: ops.squeeze(T((None, 1, 3)), 1), (None, 3), "float32"),
    ("transpose", lambda: ops.transpose(T((None, 2, 3))), (3, 2, None), "float32"),
    ("transpose_T", lambda: T((None, 2)).T, (2, None), "float32"),
    ("moveaxis", lambda: ops.moveaxis(T((None, 2, 3)), 0, -1), (2, 3, None), "float32"),
    ("swapaxes", lambda: ops.swapaxes(T((None, 2, 3)), 0, 1), (2, None, 3), "float32"),
    ("flip", lambda: ops.flip(T((None, 2)), 1), (None, 2), "float32"),
    ("fliplr", lambda: ops.fliplr(T((None, 2))), (None, 2), "float32"),
    ("flipud", lambda: ops.flipud(T((None, 2))), (None, 2), "float32"),
    ("rot90", lambda: ops.rot90(T((None, 2, 5)), 1, (1, 2)), (None, 5, 2), "float32"),
    ("roll", lambda: ops.roll(T((None, 2)), 1), (None, 2), "float32"),
    ("tile", lambda: ops.tile(T((None, 2)), (2, 3)), (None, 6), "float32"),
    ("tile_more", lambda: ops.tile(T((2,)), (3, 1)), (3, 2), "float32"),
    ("repeat", lambda: ops.repeat(T((None, 2)), 3, 1), (None, 6), "float32"),
    ("repeat_flat", lambda: ops.repeat(T((None, 2)), 3), (None,), "float32"),
    ("repeat_list", lambda: ops.repeat(T((2, 4)), [1, 2], 0), (3, 4), "float32"),
    ("pad", lambda: ops.pad(T((None, 2)), ((0, 0), (1, 2))), (None, 5), "float32"),
    ("view", lambda: ops.view(T((None, 4), "int32"), "int8"), (None, 16), "int8"),
    ("view_none", lambda: ops.view(T((None, 4), "int32")), (None, 4), "int32"),
    ("concatenate", lambda: ops.concatenate([T((None, 2)), T((3, 2))]), (None, 2), "float32"),
    ("concatenate_1", lambda: ops.concatenate([T((None, 2)), T((3, 5))], 1), (3, 7), "float32"),
    ("stack", lambda: ops.stack([T((None, 2)), T((3, 2))], 1), (3, 2, 2), "float32"),
    ("hstack", lambda: ops.hstack([T((None, 2)), T((None, 3))]), (None, 5), "float32"),
    ("vstack", lambda: ops.vstack([T((2,)), T((2,))]), (2, 2), "float32"),
    ("dstack", lambda: ops.dstack([T((None, 2)), T((None, 2))]), (None, 2, 2), "float32"),
    ("append", lambda: ops.append(T((None, 2)), T((3,))), (None,), "float32"),
    ("append_known", lambda: ops.append(T((2, 2)), T((3,))), (7,), "float32"),
]


@pytest.mark.parametrize(("name", "fn", "shape", "dtype"), SYMBOLIC, ids=[c[0] for c in SYMBOLIC])
def test_shape_op_symbolic_spec(name, fn, shape, dtype):
    out = fn()
    assert (out.shape, out.dtype) == (shape, dtype)


@pytest.mark.parametrize(
    ("op", "sizes"),
    [
        (lambda x: ops.split(x, 2, 1), [(None, 3), (None, 3)]),
        (lambda x: ops.split(x, [1, 5], 1), [(None, 1), (None, 4), (None, 1)]),
        (lambda x: ops.array_split(x, 4, 1), [(None, 2), (None, 2), (None, 1), (None, 1)]),
        (lambda x: ops.split(x, 2), [(None, 6), (None, 6)]),
        (lambda x: ops.hsplit(x, 3), [(None, 2)] * 3),
        (lambda x: ops.vsplit(x, [1]), [(None, 6), (None, 6)]),
    ],
)
def test_split_symbolic_spec(op, sizes):
    outs = op(T((None, 6), "int8"))
    assert [o.shape for o in outs] == sizes
    assert {o.dtype for o in outs} == {"int8"}


JOINS = [
    lambda a, b: ops.concatenate([a, b]),
    lambda a, b: ops.stack([a, b]),
    lambda a, b: ops.hstack([a, b]),
    lambda a, b: ops.vstack([a, b]),
    lambda a, b: ops.dstack([a, b]),
    lambda a, b: ops.append(a, b),
]


@pytest.mark.parametrize("join", JOINS)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        ("uint8", "int8"),
        ("bool", "int32"),
    ],
)
def test_joins_promote_by_the_shared_lattice(join, a, b):
    expected = dtypes.result_type(a, b)
    assert ops.dtype(join(np.ones((2, 3), a), np.ones((2, 3), b))) == expected
    assert join(T((2, 3), a), T((2, 3), b)).dtype == expected


ERRORS = [
    ("reshape", lambda: ops.reshape(X, (5, -1)), ValueError),
    ("ravel", lambda: ops.ravel([[1], [1, 2]]), ValueError),
    ("broadcast_to", lambda: ops.broadcast_to(X, (3, 3, 4)), ValueError),
    ("broadcast_to", lambda: ops.broadcast_to(T((2, 3)), (3,)), ValueError),
    ("expand_dims", lambda: ops.expand_dims(X, 5), ValueError),
    ("squeeze", lambda: ops.squeeze(X, 1), ValueError),
    ("squeeze", lambda: ops.squeeze(T((None, 2)), 1), ValueError),
    ("transpose", lambda: ops.transpose(X, (0, 1)), ValueError),
    ("transpose", lambda: ops.transpose(T((2, 3)), (0, 0)), ValueError),
    ("moveaxis", lambda: ops.moveaxis(X, (0, 1), 2), ValueError),
    ("swapaxes", lambda: ops.swapaxes(X, 0, 3), ValueError),
    ("flip", lambda: ops.flip(X, 3), ValueError),
    ("fliplr", lambda: ops.fliplr(V), ValueError),
    ("flipud", lambda: ops.flipud(np.float32(1.0)), ValueError),
    ("rot90", lambda: ops.rot90(V), ValueError),
    ("rot90", lambda: ops.rot90(X, 1, (0, 0)), ValueError),
    ("roll", lambda: ops.roll(X, (1, 2), (0, 1, 2)), ValueError),
    ("roll", lambda: ops.roll(X, 1.5), TypeError),
    ("tile", lambda: ops.tile(X, -1), ValueError),
    ("repeat", lambda: ops.repeat(M, [1, 2], axis=0), ValueError),
    ("repeat", lambda: ops.repeat(M, 2, axis=2), ValueError),
    ("pad", lambda: ops.pad(M, ((1, 2), (3, 4), (5, 6))), ValueError),
    ("pad", lambda: ops.pad(M, -1), ValueError),
    ("pad", lambda: ops.pad(M, 1, "median"), ValueError),
    ("pad", lambda: ops.pad(M, 1, "edge", constant_values=2), ValueError),
    ("view", lambda: ops.view(np.ones((3,), "int8"), "int32"), ValueError),
    ("size", lambda: ops.size([[1], [1, 2]]), ValueError),
    ("concatenate", lambda: ops.concatenate([X, M]), ValueError),
    ("concatenate", lambda: ops.concatenate([M, M[:2]], axis=1), ValueError),
    ("concatenate", lambda: ops.concatenate([]), ValueError),
    ("concatenate", lambda: ops.concatenate([T((2, 3)), T((2, 4))]), ValueError),
    ("stack", lambda: ops.stack([M, M[:2]]), ValueError),
    ("hstack", lambda: ops.hstack([M, V]), ValueError),
    ("vstack", lambda: ops.vstack([M, V]), ValueError),
    ("dstack", lambda: ops.dstack([M, V]), ValueError),
    ("append", lambda: ops.append(M, V, axis=0), ValueError),
    ("split", lambda: ops.split(SPLIT_INPUT, 4), ValueError),
    ("split", lambda: ops.split(SPLIT_INPUT, 0), ValueError),
    ("split", lambda: ops.split(SPLIT_INPUT, 2.5), TypeError),
    ("array_split", lambda: ops.array_split(SPLIT_INPUT, 2, axis=2), ValueError),
    ("hsplit", lambda: ops.hsplit(np.float32(1), 1), ValueError),
    ("vsplit", lambda: ops.vsplit(V, 1), ValueError),
    ("dsplit", lambda: ops.dsplit(M, 2), ValueError),
]


@pytest.mark.parametrize(("name", "fn", "exc"), ERRORS, ids=[c[0] for c in ERRORS])
def test_shape_op_bad_input_names_the_op(name, fn, exc):
    with pytest.raises(exc, match=f"`{name}`"):
        fn()
