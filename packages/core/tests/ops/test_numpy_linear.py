"""Products and contractions against NumPy: eager values, symbolic specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)


def _r(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.normal(size=shape).astype(dtype)


def _np_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """np.cross without its NumPy 2 deprecation of 2-vectors (padded to 3 here)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a = np.concatenate([a, np.zeros(a.shape[:-1] + (3 - a.shape[-1],), a.dtype)], -1)
    b = np.concatenate([b, np.zeros(b.shape[:-1] + (3 - b.shape[-1],), b.dtype)], -1)
    return np.moveaxis(np.cross(a, b), -1, axisc)


A23, B34, V3, V4 = _r(2, 3), _r(3, 4), _r(3), _r(4)
BATCH = _r(5, 2, 3)

# (name, lamina call, numpy reference, inputs)
VALUE_CASES = [
    ("matmul", ops.matmul, np.matmul, (A23, B34)),
    ("matmul_batched", ops.matmul, np.matmul, (BATCH, B34)),
    ("matmul_vec", ops.matmul, np.matmul, (V3, B34)),
    ("matmul_vec_right", ops.matmul, np.matmul, (BATCH, V3)),
    ("dot_vec", ops.dot, np.dot, (V3, V3)),
    ("dot_mat", ops.dot, np.dot, (A23, B34)),
    ("dot_nd", ops.dot, np.dot, (BATCH, _r(4, 3, 2))),
    ("dot_scalar", ops.dot, np.dot, (np.float32(2.0), A23)),
    ("inner", ops.inner, np.inner, (A23, _r(4, 3))),
    ("outer", ops.outer, np.outer, (A23, V4)),
    ("kron", ops.kron, np.kron, (A23, _r(2, 2))),
    ("kron_ranks", ops.kron, np.kron, (V3, BATCH)),
    ("vdot", ops.vdot, np.vdot, (A23, _r(6))),
    ("cross3", ops.cross, _np_cross, (_r(4, 3), _r(4, 3))),
    ("cross2", ops.cross, _np_cross, (_r(4, 2), _r(4, 2))),
    ("cross23", ops.cross, _np_cross, (_r(4, 2), _r(1, 3))),
    ("tensordot", ops.tensordot, np.tensordot, (BATCH, _r(2, 3, 4))),
    ("correlate", ops.correlate, np.correlate, (_r(7), _r(3))),
]


@pytest.mark.parametrize(
    ("name", "op", "ref", "args"), VALUE_CASES, ids=[c[0] for c in VALUE_CASES]
)
def test_binary_products_match_numpy(name, op, ref, args):
    assert_allclose(op(*args), ref(*args), loose=10)


@pytest.mark.parametrize("mode", ["valid", "same", "full"])
@pytest.mark.parametrize(("n", "m"), [(7, 3), (3, 7), (2, 5), (4, 4), (4, 1)])
def test_correlate_modes(mode, n, m):
    a, v = _r(n), _r(m)
    out = ops.correlate(a, v, mode=mode)
    assert_allclose(out, np.correlate(a, v, mode=mode), loose=10)
    spec = ops.correlate(lamina.KerasTensor((n,)), lamina.KerasTensor((m,)), mode=mode)
    assert spec.shape == tuple(out.shape)


def test_correlate_ints_become_float():
    out = ops.correlate(np.arange(5, dtype="int32"), np.arange(2, dtype="int32"))
    assert ops.dtype(out) == "float32"
    assert_allclose(out, np.correlate(np.arange(5.0), np.arange(2.0)))


def test_cross_axes():
    a, b = _r(3, 5), _r(5, 3)
    out = ops.cross(a, b, axisa=0, axisb=1, axisc=0)
    assert_allclose(out, _np_cross(a, b, axisa=0, axisb=1, axisc=0), loose=10)
    c = _r(2, 3, 4)
    assert_allclose(
        ops.cross(c, c[::-1].copy(), axis=1), _np_cross(c, c[::-1].copy(), axis=1), loose=10
    )


def test_tensordot_axes_forms():
    a, b = _r(2, 3, 4), _r(4, 3, 5)
    for axes in (1, ([1, 2], [1, 0]), (2, 0), 0):
        assert_allclose(ops.tensordot(a, b, axes=axes), np.tensordot(a, b, axes), loose=10)


@pytest.mark.parametrize(
    "spec, shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
        ("i,j->ij", [(3,), (4,)]),
        ("ij->", [(2, 3)]),
        ("ba", [(2, 3)]),
    ],
)
def test_einsum_matches_numpy(spec, shapes):
    args = [_r(*s) for s in shapes]
    out = ops.einsum(spec, *args)
    assert_allclose(out, np.einsum(spec, *args), loose=10)
    sym = ops.einsum(spec, *(lamina.KerasTensor(s) for s in shapes))
    assert sym.shape == np.einsum(spec, *args).shape


@pytest.mark.parametrize(("offset", "a1", "a2"), [(0, 0, 1), (1, 0, 1), (-1, 1, 2), (0, 2, 0)])
def test_trace_matches_numpy(offset, a1, a2):
    x = _r(3, 4, 5)
    out = ops.trace(x, offset=offset, axis1=a1, axis2=a2)
    assert_allclose(out, np.trace(x, offset=offset, axis1=a1, axis2=a2), loose=10)
    assert ops.dtype(ops.trace(np.ones((3, 3), "int8"))) == "int32"
    assert ops.dtype(ops.trace(np.ones((3, 3), "bool"))) == "int32"
    assert int(ops.convert_to_numpy(ops.trace(np.eye(3, dtype="bool")))) == 3


def test_trapezoid_matches_numpy():
    y = _r(3, 5)
    assert_allclose(ops.trapezoid(y), np.trapezoid(y), loose=10)
    assert_allclose(ops.trapezoid(y, dx=0.5, axis=0), np.trapezoid(y, dx=0.5, axis=0), loose=10)
    x = np.sort(_r(5))
    assert_allclose(ops.trapezoid(y, x), np.trapezoid(y, x), loose=10)
    ints = ops.trapezoid(np.arange(4, dtype="int32"))
    assert ops.dtype(ints) == "float32"
    assert_allclose(ints, 4.5)


@pytest.mark.parametrize(("N", "inc"), [(None, False), (2, False), (4, True)])
def test_vander_matches_numpy(N, inc):
    x = np.array([1.0, 2.0, 3.0], "float32")
    assert_allclose(ops.vander(x, N=N, increasing=inc), np.vander(x, N=N, increasing=inc))
    xi = np.array([1, 2, 3], "int32")
    out = ops.vander(xi, N=N, increasing=inc)
    assert ops.dtype(out) == "int32"
    assert_allclose(out, np.vander(xi, N=N, increasing=inc))


SPEC_CASES = [
    (lambda a, b: ops.matmul(a, b), (None, 2, 3), (3, 4), (None, 2, 4)),
    (lambda a, b: ops.matmul(a, b), (None, 3), (3,), (None,)),
    (lambda a, b: ops.dot(a, b), (None, 3), (3, 4), (None, 4)),
    (lambda a, b: ops.dot(a, b), (None, 3), (5, 3, 4), (None, 5, 4)),
    (lambda a, b: ops.inner(a, b), (None, 3), (4, 3), (None, 4)),
    (lambda a, b: ops.outer(a, b), (None, 3), (4,), (None, 4)),
    (lambda a, b: ops.kron(a, b), (None, 3), (2, 2), (None, 6)),
    (lambda a, b: ops.vdot(a, b), (None, 3), (6,), ()),
    (lambda a, b: ops.cross(a, b), (None, 3), (3,), (None, 3)),
    (lambda a, b: ops.cross(a, b), (None, 2), (2,), (None,)),
    (lambda a, b: ops.tensordot(a, b, axes=1), (None, 3), (3, 4), (None, 4)),
    (lambda a, b: ops.einsum("bi,ij->bj", a, b), (None, 3), (3, 4), (None, 4)),
    (lambda a, b: ops.correlate(a, b), (None,), (3,), (None,)),
    (lambda a, b: ops.trapezoid(a, b), (None, 5), (5,), (None,)),
]


@pytest.mark.parametrize(("fn", "sa", "sb", "expected"), SPEC_CASES)
@pytest.mark.parametrize(
    ("da", "db"), [("float32", "float32"), ("int8", "float16"), ("int32", "float32")]
)
def test_symbolic_shape_and_promotion(fn, sa, sb, expected, da, db):
    out = fn(lamina.KerasTensor(sa, da), lamina.KerasTensor(sb, db))
    assert out.shape == expected
    assert out.dtype == dtypes.result_type(da, db)


UNARY_SPECS = [
    (lambda x: ops.trace(x), (3, None, 2), "float16", (2,), "float16"),
    (lambda x: ops.trace(x, axis1=1, axis2=2), (3, None, 2), "uint8", (3,), "int32"),
    (lambda x: ops.trapezoid(x, axis=0), (None, 4), "int32", (4,), "float32"),
    (lambda x: ops.vander(x, N=3), (None,), "int32", (None, 3), "int32"),
    (lambda x: ops.vander(x), (5,), "float32", (5, 5), "float32"),
]


@pytest.mark.parametrize(("fn", "shape", "dtype", "eshape", "edtype"), UNARY_SPECS)
def test_unary_symbolic_specs(fn, shape, dtype, eshape, edtype):
    out = fn(lamina.KerasTensor(shape, dtype))
    assert (out.shape, out.dtype) == (eshape, edtype)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        ("uint8", "int8"),
        ("int32", "float32"),
        ("float16", "float32"),
    ],
)
@pytest.mark.parametrize(
    "op",
    [ops.matmul, ops.dot, ops.inner, ops.tensordot, ops.kron, ops.outer, ops.vdot],
    ids=lambda f: f.__name__,
)
def test_eager_promotion(op, a, b):
    x = np.ones((3, 3), a)
    y = np.ones((3, 3), b)
    out = op(x, y)
    assert ops.dtype(out) == dtypes.result_type(a, b)


ERROR_CASES = [
    ("matmul", lambda: ops.matmul(np.ones((2, 3)), np.ones((4, 2)))),
    ("matmul", lambda: ops.matmul(lamina.KerasTensor((2, 3)), lamina.KerasTensor((4, 2)))),
    ("dot", lambda: ops.dot(np.ones((2, 3)), np.ones((4,)))),
    ("inner", lambda: ops.inner(np.ones((2, 3)), np.ones((2, 4)))),
    ("vdot", lambda: ops.vdot(np.ones((2, 3)), np.ones((5,)))),
    ("cross", lambda: ops.cross(np.ones((2, 4)), np.ones((2, 3)))),
    ("cross", lambda: ops.cross(np.ones((2, 3)), np.ones((2, 3)), axisa=3)),
    ("tensordot", lambda: ops.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=1)),
    ("tensordot", lambda: ops.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=([0], [0, 1]))),
    ("tensordot", lambda: ops.tensordot(np.ones((2, 3)), np.ones((2, 3)), axes=3)),
    ("einsum", lambda: ops.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 2)))),
    ("einsum", lambda: ops.einsum("ij,jk->ik", np.ones((2, 3)))),
    ("einsum", lambda: ops.einsum("ij->iz", np.ones((2, 3)))),
    ("correlate", lambda: ops.correlate(np.ones((2, 3)), np.ones(2))),
    ("correlate", lambda: ops.correlate(np.ones(3), np.ones(2), mode="bad")),
    ("trace", lambda: ops.trace(np.ones(3))),
    ("trace", lambda: ops.trace(np.ones((3, 3)), axis1=1, axis2=1)),
    ("trapezoid", lambda: ops.trapezoid(np.ones((3, 4)), np.ones(3))),
    ("trapezoid", lambda: ops.trapezoid(np.ones((3, 4)), axis=2)),
    ("vander", lambda: ops.vander(np.ones((2, 2)))),
    ("vander", lambda: ops.vander(np.ones(2), N=-1)),
]


@pytest.mark.parametrize(("name", "fn"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_bad_inputs_raise_naming_the_op(name, fn):
    with pytest.raises(ValueError, match=f"`{name}`"):
        fn()


def test_bad_dtype_raises_type_error():
    with pytest.raises(TypeError, match="`einsum`"):
        ops.einsum(42, np.ones(2))
    with pytest.raises(TypeError, match="`matmul`"):
        ops.matmul(lamina.KerasTensor((2, 2), "string"), lamina.KerasTensor((2, 2)))
