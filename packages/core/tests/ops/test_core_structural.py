"""Structural ops against NumPy: slices, scatters, unstack, saturate_cast."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 5, 3)).astype("float32")
K = lamina.KerasTensor


# slice / slice_update -------------------------------------------------------------------

SLICES = [
    # (start, shape, the start NumPy should use after clamping)
    ((1, 2, 0), (2, 3, 3), (1, 2, 0)),
    ((0, 0, 2), (4, 5, 1), (0, 0, 2)),
    ((3, 4, 0), (2, 2, 2), (2, 3, 0)),  # clamped so the block fits
    ((-2, 0, -9), (1, 1, 1), (2, 0, 0)),  # negative starts count from the end
]


def _block(start, shape):
    return tuple(slice(s, s + n) for s, n in zip(start, shape))


@pytest.mark.parametrize(("start", "shape", "clamped"), SLICES)
def test_slice_matches_numpy(start, shape, clamped):
    expected = X[_block(clamped, shape)]
    assert_allclose(ops.slice(X, start, shape), expected)
    starts = ops.convert_to_tensor(np.array(start, "int32"))
    assert_allclose(ops.slice(ops.convert_to_tensor(X), starts, shape), expected)


@pytest.mark.parametrize(("start", "shape", "clamped"), SLICES)
def test_slice_update_matches_numpy(start, shape, clamped):
    updates = RNG.normal(size=shape).astype("float32")
    expected = X.copy()
    expected[_block(clamped, shape)] = updates
    assert_allclose(ops.slice_update(X, start, updates), expected)
    starts = [ops.convert_to_tensor(np.int32(s)) for s in start]
    assert_allclose(ops.slice_update(X, starts, updates), expected)


def test_slice_update_casts_updates_to_the_inputs_dtype():
    out = ops.slice_update(np.zeros((3,), "int16"), (1,), np.array([2.0, 3.0], "float32"))
    assert ops.dtype(out) == "int16"
    assert_allclose(out, np.array([0, 2, 3], "int16"))


def test_slice_symbolic_specs():
    out = ops.slice(K((None, 5, 3), "int8"), (0, 1, 0), (2, 2, 3))
    assert (out.shape, out.dtype) == ((2, 2, 3), "int8")
    out = ops.slice_update(K((None, 5, 3), "float16"), K((3,), "int32"), K((1, 2, 3)))
    assert (out.shape, out.dtype) == ((None, 5, 3), "float16")


def test_slice_errors_name_the_op():
    with pytest.raises(ValueError, match=r"`slice`.*one dim per dim"):
        ops.slice(X, (0, 0), (1, 1))
    with pytest.raises(ValueError, match=r"`slice`.*fit"):
        ops.slice(X, (0, 0, 0), (5, 1, 1))
    with pytest.raises(ValueError, match=r"`slice`.*non-negative"):
        ops.slice(X, (0, 0, 0), (1, -1, 1))
    with pytest.raises(ValueError, match=r"`slice`.*start_indices"):
        ops.slice(X, (0, 0), (1, 1, 1))
    with pytest.raises(TypeError, match=r"`slice`.*integers"):
        ops.slice(X, (0.5, 0, 0), (1, 1, 1))
    with pytest.raises(ValueError, match=r"`slice_update`.*one dim per dim"):
        ops.slice_update(X, (0, 0, 0), np.ones((2, 2), "float32"))
    with pytest.raises(ValueError, match=r"`slice_update`.*fit"):
        ops.slice_update(K((4, 5)), (0, 0), K((6, 1)))


# scatter / scatter_update ---------------------------------------------------------------


def test_scatter_sums_duplicates_like_numpy():
    indices = np.array([[0, 1], [3, 4], [0, 1]], "int32")
    values = RNG.normal(size=(3, 3)).astype("float32")
    expected = np.zeros((4, 5, 3), "float32")
    np.add.at(expected, (indices[:, 0], indices[:, 1]), values)
    assert_allclose(ops.scatter(indices, values, (4, 5, 3)), expected)
    full = ops.scatter([[1, 2], [0, 0]], np.array([5, 7], "int16"), (2, 3))
    assert ops.dtype(full) == "int16"
    assert_allclose(full, np.array([[7, 0, 0], [0, 0, 5]], "int16"))


def test_scatter_update_matches_numpy():
    indices = np.array([[2], [0]], "int32")
    updates = RNG.normal(size=(2, 5, 3)).astype("float32")
    expected = X.copy()
    expected[[2, 0]] = updates
    assert_allclose(ops.scatter_update(X, indices, updates), expected)
    out = ops.scatter_update(np.zeros((2, 2), "int32"), [[0, 1], [1, 0]], [1.0, 2.0])
    assert ops.dtype(out) == "int32"
    assert_allclose(out, np.array([[0, 1], [2, 0]], "int32"))


def test_scatter_symbolic_specs():
    out = ops.scatter(K((None, 2), "int32"), K((None, 3), "float16"), (4, 5, 3))
    assert (out.shape, out.dtype) == ((4, 5, 3), "float16")
    out = ops.scatter_update(K((None, 5), "int8"), K((7, 1), "int32"), K((7, 5), "int8"))
    assert (out.shape, out.dtype) == ((None, 5), "int8")


def test_scatter_errors_name_the_op():
    with pytest.raises(TypeError, match=r"`scatter`.*integers"):
        ops.scatter(np.array([[0.0]], "float32"), np.ones((1,), "float32"), (2,))
    with pytest.raises(ValueError, match=r"`scatter`.*values"):
        ops.scatter(np.array([[0]], "int32"), np.ones((2,), "float32"), (2,))
    with pytest.raises(ValueError, match=r"`scatter`.*indices"):
        ops.scatter(np.array([[0, 0, 0]], "int32"), np.ones((1,), "float32"), (2, 2))
    with pytest.raises(ValueError, match=r"`scatter_update`.*updates"):
        ops.scatter_update(X, np.array([[0]], "int32"), np.ones((5, 3), "float32"))


# unstack --------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_matches_numpy(axis):
    parts = ops.unstack(X, axis=axis)
    expected = list(np.moveaxis(X, axis, 0))
    assert len(parts) == len(expected)
    for got, want in zip(parts, expected):
        assert_allclose(got, want)


def test_unstack_symbolic_and_errors():
    parts = ops.unstack(K((2, None, 3), "int8"), num=4, axis=1)
    assert [(p.shape, p.dtype) for p in parts] == [((2, 3), "int8")] * 4
    with pytest.raises(ValueError, match=r"`unstack`.*num"):
        ops.unstack(K((None, 3)))
    with pytest.raises(ValueError, match=r"`unstack`.*num"):
        ops.unstack(X, num=3)
    with pytest.raises(ValueError, match=r"`unstack`.*axis"):
        ops.unstack(X, axis=3)


# saturate_cast --------------------------------------------------------------------------

SATURATE = [
    # (source dtype, target dtype, values, expected)
    ("float32", "uint8", [-5.0, 0.5, 254.6, 1e6], [0, 0, 254, 255]),
    ("float32", "int8", [-1e3, -3.7, 3.7, 1e3], [-128, -3, 3, 127]),
    # 2**31 - 1 is not a float32: the largest float32 below it is the bound.
    ("float32", "int32", [-3e10, 0.0, 3e10, 12345.0], [-(2**31), 0, 2147483520, 12345]),
    ("int32", "uint8", [-7, 0, 200, 70000], [0, 0, 200, 255]),
    ("int16", "int8", [-300, -5, 5, 300], [-128, -5, 5, 127]),
    pytest.param(
        "float32",
        "float16",
        [-1e6, 1.5, 7e4, 1e5],
        [-65504, 1.5, 65504, 65504],
        marks=pytest.mark.half_precision,
    ),
    ("uint8", "int8", [0, 100, 200, 255], [0, 100, 127, 127]),
    ("int8", "float32", [-128, 0, 5, 127], [-128, 0, 5, 127]),
]


@pytest.mark.parametrize(("src", "dst", "values", "expected"), SATURATE)
def test_saturate_cast_clips_to_the_target_range(src, dst, values, expected):
    out = ops.saturate_cast(np.array(values).astype(src), dst)
    assert ops.dtype(out) == dst
    assert_allclose(out, np.array(expected).astype(dst))


def test_saturate_cast_symbolic_and_errors():
    out = ops.saturate_cast(K((None, 2), "float32"), "uint8")
    assert (out.shape, out.dtype) == ((None, 2), "uint8")
    with pytest.raises(TypeError, match=r"`saturate_cast`.*dtype"):
        ops.saturate_cast(X, "complex64")
    with pytest.raises(TypeError, match=r"`saturate_cast`"):
        ops.saturate_cast(K((2,), "complex64"), "int8")
