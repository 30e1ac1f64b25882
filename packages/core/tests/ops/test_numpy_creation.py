"""Creation ops against NumPy: eager values and dtypes, symbolic specs, promotion, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

X = np.arange(6, dtype="float32").reshape(2, 3)
I8 = np.array([1, 2, 3], dtype="int8")

# (id, lamina call, NumPy reference, expected dtype)
EAGER = [
    ("zeros", lambda: ops.zeros((2, 3)), lambda: np.zeros((2, 3)), "float32"),
    ("zeros_int", lambda: ops.zeros(3, "int32"), lambda: np.zeros(3), "int32"),
    ("ones", lambda: ops.ones((2,), "int8"), lambda: np.ones(2), "int8"),
    ("empty", lambda: ops.empty((2, 2)), lambda: np.zeros((2, 2)), "float32"),
    ("full_int", lambda: ops.full((2, 3), 7), lambda: np.full((2, 3), 7), "int32"),
    ("full_float", lambda: ops.full((2,), 1.5), lambda: np.full((2,), 1.5), "float32"),
    ("full_tensor", lambda: ops.full((2, 3), I8), lambda: np.full((2, 3), I8), "int8"),
    ("full_dtype", lambda: ops.full((2,), 3, "float16"), lambda: np.full(2, 3.0), "float16"),
    ("full_like", lambda: ops.full_like(X, 3), lambda: np.full_like(X, 3), "float32"),
    ("full_like_dt", lambda: ops.full_like(X, 2, "int32"), lambda: np.full((2, 3), 2), "int32"),
    ("zeros_like", lambda: ops.zeros_like(I8), lambda: np.zeros(3), "int8"),
    ("ones_like", lambda: ops.ones_like(X, "bool"), lambda: np.ones((2, 3), bool), "bool"),
    ("empty_like", lambda: ops.empty_like(X), lambda: np.zeros((2, 3)), "float32"),
    ("eye", lambda: ops.eye(3), lambda: np.eye(3), "float32"),
    ("eye_rect", lambda: ops.eye(3, 4, 1, "int32"), lambda: np.eye(3, 4, 1), "int32"),
    ("eye_neg_k", lambda: ops.eye(3, k=-1), lambda: np.eye(3, k=-1), "float32"),
    ("identity", lambda: ops.identity(3, "int8"), lambda: np.identity(3), "int8"),
    ("tri", lambda: ops.tri(3), lambda: np.tri(3), "float32"),
    ("tri_rect", lambda: ops.tri(3, 4, 1, "int32"), lambda: np.tri(3, 4, 1), "int32"),
    ("tri_neg_k", lambda: ops.tri(4, 2, -1), lambda: np.tri(4, 2, -1), "float32"),
    ("copy", lambda: ops.copy(I8), lambda: I8, "int8"),
    ("array_int", lambda: ops.array([1, 2]), lambda: np.array([1, 2]), "int32"),
    ("array_float", lambda: ops.array([1.0, 2.5]), lambda: np.array([1.0, 2.5]), "float32"),
    ("array_dtype", lambda: ops.array(X, "float16"), lambda: X, "float16"),
    ("arange", lambda: ops.arange(5), lambda: np.arange(5), "int32"),
    ("arange_step", lambda: ops.arange(1, 7, 2), lambda: np.arange(1, 7, 2), "int32"),
    ("arange_neg", lambda: ops.arange(5, 0, -2), lambda: np.arange(5, 0, -2), "int32"),
    ("arange_float", lambda: ops.arange(0.0, 1.0, 0.25), lambda: np.arange(0, 1, 0.25), "float32"),
    ("arange_dtype", lambda: ops.arange(4, dtype="float32"), lambda: np.arange(4.0), "float32"),
    ("arange_f16", lambda: ops.arange(3, dtype="float16"), lambda: np.arange(3.0), "float16"),
    ("arange_empty", lambda: ops.arange(3, 1), lambda: np.arange(3, 1), "int32"),
    ("linspace", lambda: ops.linspace(0, 1, 5), lambda: np.linspace(0, 1, 5), "float32"),
    (
        "linspace_open",
        lambda: ops.linspace(0.0, 2.0, 4, endpoint=False),
        lambda: np.linspace(0, 2, 4, endpoint=False),
        "float32",
    ),
    (
        "linspace_axis",
        lambda: ops.linspace(np.zeros(2, "float32"), np.array([1.0, 2.0], "float32"), 3, axis=1),
        lambda: np.linspace(np.zeros(2), [1.0, 2.0], 3, axis=1),
        "float32",
    ),
    ("linspace_one", lambda: ops.linspace(2.0, 5.0, 1), lambda: np.linspace(2, 5, 1), "float32"),
    (
        "linspace_f16",
        lambda: ops.linspace(np.array(0.0, "float16"), 1.0, 3),
        lambda: np.linspace(0, 1, 3),
        "float16",
    ),
    ("logspace", lambda: ops.logspace(0, 2, 3), lambda: np.logspace(0, 2, 3), "float32"),
    (
        "logspace_base",
        lambda: ops.logspace(0.0, 3.0, 4, endpoint=False, base=2),
        lambda: np.logspace(0, 3, 4, endpoint=False, base=2),
        "float32",
    ),
    ("geomspace", lambda: ops.geomspace(1, 1000, 4), lambda: np.geomspace(1, 1000, 4), "float32"),
    (
        "geomspace_neg",
        lambda: ops.geomspace(-1.0, -100.0, 3, endpoint=True),
        lambda: np.geomspace(-1, -100, 3),
        "float32",
    ),
    ("bartlett", lambda: ops.bartlett(7), lambda: np.bartlett(7), "float32"),
    ("blackman", lambda: ops.blackman(7), lambda: np.blackman(7), "float32"),
    ("hamming", lambda: ops.hamming(7), lambda: np.hamming(7), "float32"),
    ("hanning", lambda: ops.hanning(6), lambda: np.hanning(6), "float32"),
    ("kaiser", lambda: ops.kaiser(7, 5.0), lambda: np.kaiser(7, 5.0), "float32"),
    ("hanning_one", lambda: ops.hanning(1), lambda: np.hanning(1), "float32"),
]


@pytest.mark.parametrize(
    ("name", "fn", "ref", "dtype"),
    [pytest.param(*c, marks=pytest.mark.half_precision) if c[3] == "float16" else c for c in EAGER],
    ids=[c[0] for c in EAGER],
)
def test_creation_matches_numpy(name, fn, ref, dtype):
    out = fn()
    expected = np.asarray(ref())
    assert ops.dtype(out) == dtype
    assert ops.convert_to_numpy(out).shape == expected.shape
    assert_allclose(out, expected.astype(np.float64 if dtype != "bool" else bool))


def test_linspace_retstep():
    samples, step = ops.linspace(0.0, 1.0, 5, retstep=True)
    ref, ref_step = np.linspace(0, 1, 5, retstep=True)
    assert_allclose(samples, ref)
    assert_allclose(step, ref_step)


def test_linspace_int_dtype_casts_samples():
    out = ops.linspace(0, 8, 5, dtype="int32")
    assert ops.dtype(out) == "int32"
    assert_allclose(out, np.array([0, 2, 4, 6, 8]))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = (np.arange(n, dtype="int32") for n in (3, 2, 4))
    outs = ops.meshgrid(a, b, c, indexing=indexing)
    refs = np.meshgrid(a, b, c, indexing=indexing)
    assert len(outs) == 3
    for out, ref in zip(outs, refs, strict=True):
        assert_allclose(out, ref)
        assert ops.dtype(out) == "int32"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        ("uint8", "int8"),
        ("int32", "float32"),
    ],
)
def test_meshgrid_promotes_by_the_shared_lattice(a, b):
    expected = dtypes.result_type(a, b)
    outs = ops.meshgrid(np.ones(2, a), np.ones(3, b))
    assert [ops.dtype(o) for o in outs] == [expected, expected]
    sym = ops.meshgrid(lamina.KerasTensor((2,), a), lamina.KerasTensor((None,), b))
    assert [(s.shape, s.dtype) for s in sym] == [((None, 2), expected)] * 2


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("float16", "float16", marks=pytest.mark.half_precision),
        pytest.param("int8", "float16", marks=pytest.mark.half_precision),
        pytest.param("int32", "bfloat16", marks=pytest.mark.half_precision),
    ],
)
def test_linspace_promotes_by_the_shared_lattice(a, b):
    expected = dtypes.result_type(a, b, 1.0)
    out = ops.linspace(np.array(0, a), np.array(1, b), 3)
    assert ops.dtype(out) == expected
    sym = ops.linspace(lamina.KerasTensor((), a), lamina.KerasTensor((), b), 3)
    assert sym.dtype == expected


SYMBOLIC = [
    ("full_like", lambda t: ops.full_like(t, 1), (None, 3), "int8"),
    ("full_like_dt", lambda t: ops.full_like(t, 1, "float32"), (None, 3), "float32"),
    ("zeros_like", lambda t: ops.zeros_like(t), (None, 3), "int8"),
    ("ones_like", lambda t: ops.ones_like(t, "bool"), (None, 3), "bool"),
    ("empty_like", lambda t: ops.empty_like(t), (None, 3), "int8"),
    ("copy", lambda t: ops.copy(t), (None, 3), "int8"),
    ("array", lambda t: ops.array(t, "float32"), (None, 3), "float32"),
    ("full", lambda t: ops.full((4, 2, 3), t), (4, 2, 3), "int8"),
    ("linspace", lambda t: ops.linspace(t, 1.0, 5, axis=-1), (None, 3, 5), "float32"),
    ("logspace", lambda t: ops.logspace(t, 2.0, 4), (4, None, 3), "float32"),
    ("geomspace", lambda t: ops.geomspace(t, 2.0, 4, axis=1), (None, 4, 3), "float32"),
    ("arange", lambda t: ops.arange(t[0, 0]), (None,), "int8"),
]


@pytest.mark.parametrize(("name", "fn", "shape", "dtype"), SYMBOLIC, ids=[c[0] for c in SYMBOLIC])
def test_creation_symbolic_spec(name, fn, shape, dtype):
    t = (
        lamina.KerasTensor((None, 3), "int8")
        if name != "full"
        else lamina.KerasTensor((3,), "int8")
    )
    out = fn(t)
    assert out.shape == shape
    assert out.dtype == dtype


def test_linspace_retstep_symbolic():
    samples, step = ops.linspace(lamina.KerasTensor((None,)), 1.0, 5, retstep=True)
    assert (samples.shape, step.shape) == ((5, None), (None,))


ERRORS = [
    ("zeros", lambda: ops.zeros(-1), ValueError),
    ("ones", lambda: ops.ones("a"), TypeError),
    ("empty", lambda: ops.empty((2,), "nope"), ValueError),
    ("full", lambda: ops.full((2,), np.ones(3)), ValueError),
    ("full_like", lambda: ops.full_like(X, np.ones(5)), ValueError),
    ("zeros_like", lambda: ops.zeros_like(X, "nope"), ValueError),
    ("ones_like", lambda: ops.ones_like(X, "nope"), ValueError),
    ("empty_like", lambda: ops.empty_like(X, "nope"), ValueError),
    ("eye", lambda: ops.eye(-1), ValueError),
    ("identity", lambda: ops.identity(2.5), TypeError),
    ("tri", lambda: ops.tri("a"), TypeError),
    ("copy", lambda: ops.copy([[1], [1, 2]]), ValueError),
    ("array", lambda: ops.array([[1], [1, 2]]), ValueError),
    ("arange", lambda: ops.arange(0, 5, 0), ValueError),
    ("arange", lambda: ops.arange(0, 5, dtype="bool"), TypeError),
    ("linspace", lambda: ops.linspace(0, 1, -1), ValueError),
    ("linspace", lambda: ops.linspace(0, 1, 3, axis=2), ValueError),
    ("logspace", lambda: ops.logspace(0, 1, 3, base="a"), TypeError),
    ("geomspace", lambda: ops.geomspace(0, 1, 3), ValueError),
    ("meshgrid", lambda: ops.meshgrid(np.ones((2, 2))), ValueError),
    ("meshgrid", lambda: ops.meshgrid(np.ones(2), indexing="yx"), ValueError),
    ("bartlett", lambda: ops.bartlett(2.5), TypeError),
    ("blackman", lambda: ops.blackman("a"), TypeError),
    ("hamming", lambda: ops.hamming(None), TypeError),
    ("hanning", lambda: ops.hanning(1.0), TypeError),
    ("kaiser", lambda: ops.kaiser(3, "a"), TypeError),
]


@pytest.mark.parametrize(("name", "fn", "exc"), ERRORS, ids=[c[0] for c in ERRORS])
def test_creation_bad_input_names_the_op(name, fn, exc):
    with pytest.raises(exc, match=f"`{name}`"):
        fn()


def test_read_only_arrays_convert_without_warnings(tmp_path) -> None:
    # A memory-mapped dataset opened read-only, and a view NumPy marks read-only: PyTorch
    # warns on (and could write into) the memory of such an array, so it gets a copy.
    path = tmp_path / "x.npy"
    np.save(path, X)
    mapped = np.load(path, mmap_mode="r")
    frozen = X.copy()
    frozen.flags.writeable = False
    for array in (mapped, frozen, mapped[::-1]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = ops.add(ops.convert_to_tensor(array), 1.0)
        assert_allclose(out, np.asarray(array) + 1.0)
