"""Linear algebra against NumPy/SciPy: values, symbolic specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import lamina
from lamina import ops
from lamina.backend import Capability, current
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)


def _r(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape).astype("float32")


def _spd(*batch: int, n: int = 3) -> np.ndarray:
    m = _r(*batch, n, n)
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype("float32")


def _np(x):
    return ops.convert_to_numpy(x)


SPD = _spd(2)
SQ = _r(2, 3, 3) + 3 * np.eye(3, dtype="float32")
RECT = _r(4, 3)
LOOSE = 100  # decompositions accumulate rounding error


@pytest.mark.parametrize(
    ("name", "fn", "ref", "x"),
    [
        ("cholesky", ops.cholesky, np.linalg.cholesky, SPD),
        (
            "cholesky_upper",
            lambda x: ops.cholesky(x, upper=True),
            lambda x: np.swapaxes(np.linalg.cholesky(x), -1, -2),
            SPD,
        ),
        (
            "cholesky_inverse",
            lambda x: ops.cholesky_inverse(np.linalg.cholesky(x)),
            np.linalg.inv,
            SPD,
        ),
        (
            "cholesky_inverse_upper",
            lambda x: ops.cholesky_inverse(np.swapaxes(np.linalg.cholesky(x), -1, -2), upper=True),
            np.linalg.inv,
            SPD,
        ),
        ("det", ops.det, np.linalg.det, SQ),
        ("inv", ops.inv, np.linalg.inv, SQ),
        (
            "slogdet_sign",
            lambda x: ops.linalg.slogdet(x)[0],
            lambda x: np.linalg.slogdet(x)[0],
            -SQ,
        ),
        ("slogdet_log", lambda x: ops.linalg.slogdet(x)[1], lambda x: np.linalg.slogdet(x)[1], -SQ),
        ("eigh_values", lambda x: ops.eigh(x)[0], lambda x: np.linalg.eigh(x)[0], SPD),
        (
            "svd_values",
            lambda x: ops.svd(x, compute_uv=False),
            lambda x: np.linalg.svd(x, compute_uv=False),
            RECT,
        ),
        ("pinv", ops.pinv, np.linalg.pinv, RECT),
        ("pinv_batched", ops.pinv, np.linalg.pinv, SQ),
        (
            "matrix_rank",
            ops.matrix_rank,
            np.linalg.matrix_rank,
            np.array([[1.0, 2.0], [2.0, 4.0]], "float32"),
        ),
        (
            "matrix_rank_tol",
            lambda x: ops.matrix_rank(x, tol=0.5),
            lambda x: np.linalg.matrix_rank(x, tol=0.5),
            np.diag([3.0, 1.0, 0.1]).astype("float32"),
        ),
    ],
)
def test_matrix_functions_match_numpy(name, fn, ref, x):
    out = fn(x)
    expected = ref(x.astype("float64")).astype(_np(out).dtype)
    assert_allclose(out, expected, loose=LOOSE)


def test_eig_values_and_vectors():
    x = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 0.0, 5.0]], "float32")
    w, v = ops.eig(x)
    assert ops.dtype(w) == "complex64" and ops.dtype(v) == "complex64"
    w, v = _np(w), _np(v)
    np.testing.assert_allclose(np.sort(w.real), np.sort(np.linalg.eigvals(x).real), rtol=1e-4)
    np.testing.assert_allclose(x @ v, v * w[None, :], atol=1e-4)


def test_eig_complex_eigenvalues():
    rot = np.array([[0.0, -1.0], [1.0, 0.0]], "float32")
    w = np.sort_complex(_np(ops.eig(rot)[0]))
    np.testing.assert_allclose(w, np.array([-1j, 1j]), atol=1e-6)


def test_eigh_vectors_diagonalize():
    w, v = ops.eigh(SPD)
    w, v = _np(w), _np(v)
    np.testing.assert_allclose(SPD @ v, v * w[..., None, :], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("x", [_r(4, 4), _r(2, 3, 3), np.array([[1.0, 2.0], [3.0, 4.0]], "f4")])
def test_lu_factor_matches_scipy(x):
    lu, piv = ops.lu_factor(x)
    assert ops.dtype(piv) == "int32"
    flat = x.reshape(-1, *x.shape[-2:])
    ref = [scipy.linalg.lu_factor(m) for m in flat]
    assert_allclose(lu, np.stack([r[0] for r in ref]).reshape(x.shape), loose=LOOSE)
    np.testing.assert_array_equal(_np(piv), np.stack([r[1] for r in ref]).reshape(x.shape[:-1]))


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_qr_reconstructs(mode, shape):
    x = _r(*shape)
    q, r = ops.qr(x, mode=mode)
    rq, rr = np.linalg.qr(x, mode=mode)
    assert tuple(q.shape) == rq.shape and tuple(r.shape) == rr.shape
    assert_allclose(_np(q) @ _np(r), x, loose=LOOSE)
    np.testing.assert_allclose(np.abs(_np(r)), np.abs(rr), rtol=1e-4, atol=1e-4)
    spec = ops.qr(lamina.KerasTensor(shape), mode=mode)
    assert (spec[0].shape, spec[1].shape) == (rq.shape, rr.shape)


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
def test_svd_reconstructs(full, shape):
    x = _r(*shape)
    u, s, vh = ops.svd(x, full_matrices=full)
    ru, rs, rvh = np.linalg.svd(x, full_matrices=full)
    assert (tuple(u.shape), tuple(s.shape), tuple(vh.shape)) == (ru.shape, rs.shape, rvh.shape)
    k = rs.shape[-1]
    rebuilt = (_np(u)[..., :, :k] * _np(s)[..., None, :]) @ _np(vh)[..., :k, :]
    assert_allclose(rebuilt, x, loose=LOOSE)
    spec = ops.svd(lamina.KerasTensor(shape), full_matrices=full)
    assert tuple(t.shape for t in spec) == (ru.shape, rs.shape, rvh.shape)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (SQ[0], _r(3)),
        (SQ[0], _r(3, 2)),
        (SQ, _r(2, 3, 4)),
        (SQ, _r(3, 2)),
        (SQ, _r(3)),
        (_r(3, 3, 3) + 3 * np.eye(3, dtype="f4"), _r(3, 3)),
    ],
)
def test_solve_matches_numpy(a, b):
    assert_allclose(ops.solve(a, b), np.linalg.solve(a, b), loose=LOOSE)
    spec = ops.solve(lamina.KerasTensor(a.shape), lamina.KerasTensor(b.shape))
    assert spec.shape == np.linalg.solve(a, b).shape


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize(("a", "b"), [(SQ[0], _r(3)), (SQ[0], _r(3, 2)), (SQ, _r(2, 3, 2))])
def test_solve_triangular_matches_numpy(lower, a, b):
    tri = np.tril(a) if lower else np.triu(a)
    # Only the named triangle is read: the other one holds garbage.
    assert_allclose(ops.solve_triangular(a, b, lower=lower), np.linalg.solve(tri, b), loose=LOOSE)


@pytest.mark.parametrize(
    ("a", "b", "rcond"),
    [
        (_r(5, 3), _r(5), None),
        (_r(5, 3), _r(5, 2), None),
        (np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]], "f4"), _r(3), None),
        (np.diag([1.0, 1e-4]).astype("f4"), _r(2), 1e-2),
    ],
)
def test_lstsq_matches_numpy(a, b, rcond):
    expected = np.linalg.lstsq(a.astype("f8"), b.astype("f8"), rcond=rcond)[0]
    assert_allclose(ops.lstsq(a, b, rcond=rcond), expected.astype("f4"), loose=LOOSE)


NORM_CASES = [
    (None, None, False, (3, 4)),
    (None, None, True, (2, 3, 4)),
    (None, 1, False, (3, 4)),
    (1, 0, True, (3, 4)),
    (3, -1, False, (3, 4)),
    (0, 1, False, (3, 4)),
    (np.inf, 1, False, (3, 4)),
    (-np.inf, 0, False, (3, 4)),
    (-1, 1, False, (3, 4)),
    ("fro", (0, 1), False, (3, 4)),
    ("nuc", (0, 1), False, (3, 4)),
    ("nuc", (1, 2), True, (2, 3, 4)),
    (2, (0, 1), False, (3, 4)),
    (-2, (2, 1), False, (2, 3, 4)),
    (1, (0, 1), False, (3, 4)),
    (-1, (1, 0), True, (3, 4)),
    (np.inf, (0, 1), False, (3, 4)),
    (-np.inf, (-1, -2), False, (2, 3, 4)),
    (2, None, False, (4,)),
    (1, None, False, (3, 4)),
]


@pytest.mark.parametrize(("ord", "axis", "keepdims", "shape"), NORM_CASES)
def test_norm_matches_numpy(ord, axis, keepdims, shape):
    x = _r(*shape)
    if ord == 0:
        x[0, 0] = 0.0
    out = ops.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    expected = np.linalg.norm(x.astype("f8"), ord=ord, axis=axis, keepdims=keepdims)
    assert_allclose(out, expected.astype("f4"), loose=LOOSE)
    spec = ops.norm(lamina.KerasTensor(shape), ord=ord, axis=axis, keepdims=keepdims)
    assert spec.shape == expected.shape and spec.dtype == "float32"


@pytest.mark.parametrize(
    ("fn", "shape", "dtype", "expected"),
    [
        (ops.cholesky, (None, 3, 3), "float32", [((None, 3, 3), "float32")]),
        (ops.cholesky_inverse, (None, 3, 3), "float64", [((None, 3, 3), "float64")]),
        (ops.det, (None, 3, 3), "int32", [((None,), "float32")]),
        (ops.inv, (None, 2, 2), "float16", [((None, 2, 2), "float16")]),
        (ops.eig, (None, 3, 3), "float32", [((None, 3), "complex64"), ((None, 3, 3), "complex64")]),
        (ops.eigh, (None, 3, 3), "float64", [((None, 3), "float64"), ((None, 3, 3), "float64")]),
        (ops.lu_factor, (None, 3, 3), "float32", [((None, 3, 3), "float32"), ((None, 3), "int32")]),
        (ops.linalg.slogdet, (None, 3, 3), "int8", [((None,), "float32"), ((None,), "float32")]),
        (ops.qr, (None, 5, 3), "float32", [((None, 5, 3), "float32"), ((None, 3, 3), "float32")]),
        (
            ops.qr,
            (None, None, 3),
            "float32",
            [((None, None, None), "float32"), ((None, None, 3), "float32")],
        ),
        (
            ops.svd,
            (None, 5, 3),
            "float32",
            [((None, 5, 5), "float32"), ((None, 3), "float32"), ((None, 3, 3), "float32")],
        ),
        (ops.pinv, (None, 5, 3), "int32", [((None, 3, 5), "float32")]),
        (ops.matrix_rank, (None, 5, 3), "float32", [((None,), "int32")]),
        (ops.norm, (None, 5, 3), "int32", [((), "float32")]),
    ],
)
def test_symbolic_specs(fn, shape, dtype, expected):
    out = fn(lamina.KerasTensor(shape, dtype))
    outs = out if isinstance(out, tuple) else (out,)
    assert [(o.shape, o.dtype) for o in outs] == expected


def test_solvers_symbolic_promotion():
    a, b = lamina.KerasTensor((None, 3, 3), "int32"), lamina.KerasTensor((None, 3, 2), "float16")
    assert ops.solve(a, b).dtype == "float32"
    assert ops.solve_triangular(a, b).shape == (None, 3, 2)
    assert ops.lstsq(lamina.KerasTensor((5, 3), "float64"), lamina.KerasTensor((5,))).shape == (3,)
    assert ops.lstsq(lamina.KerasTensor((5, 3), "float64"), lamina.KerasTensor((5,))).dtype == (
        "float64"
    )


@pytest.mark.parametrize(
    "fn",
    [ops.det, ops.inv, lambda x: ops.linalg.slogdet(x)[1], ops.pinv, ops.norm],
    ids=["det", "inv", "slogdet", "pinv", "norm"],
)
@pytest.mark.parametrize(
    "dtype", ["int32", pytest.param("float16", marks=pytest.mark.half_precision), "float32"]
)
def test_eager_dtypes(fn, dtype):
    x = (np.eye(3) * 2 + 1).astype(dtype)
    expected = "float32" if dtype == "int32" else dtype
    assert ops.dtype(fn(x)) == expected
    assert ops.dtype(ops.solve(x, np.ones(3, "float32"))) == ("float32")


@pytest.mark.half_precision
def test_half_precision_computes_in_float32():
    x = SPD[0].astype("float16")
    out = ops.inv(x)
    assert ops.dtype(out) == "float16"
    assert_allclose(out, np.linalg.inv(x.astype("f8")).astype("f2"), loose=10)


ERRORS = [
    ("cholesky", lambda: ops.cholesky(np.ones((2, 3)))),
    ("cholesky_inverse", lambda: ops.cholesky_inverse(np.ones(3))),
    ("det", lambda: ops.det(np.ones((2, 3)))),
    ("eig", lambda: ops.eig(np.ones(3))),
    ("eigh", lambda: ops.eigh(lamina.KerasTensor((3, 4)))),
    ("inv", lambda: ops.inv(np.ones((3,)))),
    ("lu_factor", lambda: ops.lu_factor(np.ones((2, 3)))),
    ("qr", lambda: ops.qr(np.ones(3))),
    ("qr", lambda: ops.qr(np.ones((3, 3)), mode="r")),
    ("svd", lambda: ops.svd(np.ones(3))),
    ("slogdet", lambda: ops.linalg.slogdet(np.ones((2, 3)))),
    ("solve", lambda: ops.solve(np.eye(3), np.ones(4))),
    ("solve", lambda: ops.solve(np.eye(3), np.ones((4, 2)))),
    ("solve_triangular", lambda: ops.solve_triangular(np.ones((3, 2)), np.ones(3))),
    ("lstsq", lambda: ops.lstsq(np.ones((3, 2)), np.ones(4))),
    ("lstsq", lambda: ops.lstsq(np.ones((2, 3, 2)), np.ones(3))),
    ("pinv", lambda: ops.pinv(np.ones(3))),
    ("matrix_rank", lambda: ops.matrix_rank(np.ones(3))),
    ("norm", lambda: ops.norm(np.ones((2, 3, 4)), ord=1)),
    ("norm", lambda: ops.norm(np.ones((2, 3)), ord="fro", axis=0)),
    ("norm", lambda: ops.norm(np.ones((2, 3)), ord=3, axis=(0, 1))),
    ("norm", lambda: ops.norm(np.ones((2, 3)), axis=2)),
    ("jvp", lambda: ops.jvp(lambda x: x, (np.ones(2),), (np.ones(3),))),
]


@pytest.mark.parametrize(("name", "fn"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_inputs_raise_naming_the_op(name, fn):
    with pytest.raises(ValueError, match=f"`{name}`"):
        fn()


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError, match="`det`"):
        ops.det(lamina.KerasTensor((2, 2), "string"))
    with pytest.raises(TypeError, match="`jvp`"):
        ops.jvp("f", (np.ones(2),), (np.ones(2),))
    with pytest.raises(TypeError, match="`pinv`"):
        ops.pinv(np.eye(2), rcond="big")


def _f(x, y):
    return x * y + x * x


@pytest.mark.requires(Capability.TRAINING)
def test_jvp_matches_analytic_derivative():
    x, y = np.array([1.0, 2.0], "f4"), np.array([3.0, -1.0], "f4")
    tx, ty = np.array([1.0, 0.5], "f4"), np.array([0.0, 2.0], "f4")
    out, tangent = ops.jvp(_f, (x, y), (tx, ty))
    assert_allclose(out, x * y + x * x)
    assert_allclose(tangent, tx * y + x * ty + 2 * x * tx)
    out, tangent, aux = ops.jvp(lambda a: (a * a, a + 1), [x], [tx], has_aux=True)
    assert_allclose(tangent, 2 * x * tx)
    assert_allclose(aux, x + 1)


def test_jvp_without_training_capability_raises():
    if current().supports(Capability.TRAINING):
        pytest.skip("backend can differentiate (covered by test_jvp_matches_analytic_derivative)")
    with pytest.raises(NotImplementedError, match=r"`jvp`.*cannot differentiate"):
        ops.jvp(_f, (np.ones(2),), (np.ones(2),))
