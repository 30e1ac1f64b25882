"""Moments and normalization ops against NumPy: values, specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import config, ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(2)
X = RNG.normal(loc=1.0, size=(2, 3, 4)).astype("float32")
X64 = X.astype("float64")


@pytest.mark.parametrize(
    ("axes", "keepdims"), [(0, False), ((0, 2), True), ([1, -1], False), (None, False)]
)
def test_moments_matches_numpy(axes, keepdims):
    np_axes = tuple(axes) if isinstance(axes, list) else axes
    mean, var = ops.moments(X, axes, keepdims=keepdims)
    assert ops.dtype(mean) == ops.dtype(var) == "float32"
    assert_allclose(mean, X64.mean(axis=np_axes, keepdims=keepdims))
    assert_allclose(var, X64.var(axis=np_axes, keepdims=keepdims), loose=2)


@pytest.mark.half_precision
def test_moments_dtypes_and_spec():
    mean, var = ops.moments(np.arange(6, dtype="int32"), axes=0)
    assert ops.dtype(mean) == "float32"
    assert_allclose(var, np.var(np.arange(6)))
    half_mean, half_var = ops.moments(X.astype("float16"), axes=(1, 2))
    assert ops.dtype(half_mean) == ops.dtype(half_var) == "float16"
    assert_allclose(half_var, X.astype("float16").astype("float64").var(axis=(1, 2)))
    m, v = ops.moments(lamina.KerasTensor((None, 3, 4), "int8"), axes=[1], keepdims=True)
    assert (m.shape, m.dtype, v.shape) == ((None, 1, 4), "float32", (None, 1, 4))


def test_batch_normalization_matches_numpy():
    mean, var = RNG.normal(size=3), RNG.uniform(0.5, 2, size=3)
    offset, scale = RNG.normal(size=3), RNG.normal(size=3)
    args = [a.astype("float32") for a in (mean, var, offset, scale)]
    got = ops.batch_normalization(X, args[0], args[1], axis=1, offset=args[2], scale=args[3])
    shape = (1, 3, 1)
    expected = (X64 - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-3)
    expected = expected * scale.reshape(shape) + offset.reshape(shape)
    assert ops.dtype(got) == "float32"
    assert_allclose(got, expected, loose=2)
    plain = ops.batch_normalization(X, args[0][:1].repeat(4), 2.0, axis=-1, epsilon=0.0)
    assert_allclose(plain, (X64 - mean[0]) / np.sqrt(2.0), loose=2)


@pytest.mark.half_precision
def test_batch_normalization_promotes_and_spec():
    x = X.astype("float16")
    stats = np.ones((3,), "float32")
    assert ops.dtype(ops.batch_normalization(x, stats, stats, axis=1)) == dtypes.result_type(
        "float16", "float32"
    )
    assert ops.dtype(ops.batch_normalization(x, stats.astype("float16"), 1.0, axis=1)) == "float16"
    out = ops.batch_normalization(
        lamina.KerasTensor((None, 3)), lamina.KerasTensor((3,)), lamina.KerasTensor((3,)), axis=-1
    )
    assert (out.shape, out.dtype) == ((None, 3), "float32")


def _layer_norm(x, axes, eps, gamma=None, beta=None):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    out = out if gamma is None else out * gamma
    return out if beta is None else out + beta


def test_layer_normalization_matches_numpy():
    eps = config.epsilon()
    assert_allclose(ops.layer_normalization(X), _layer_norm(X64, -1, eps), loose=5)
    gamma = RNG.normal(size=(4,)).astype("float32")
    beta = RNG.normal(size=(4,)).astype("float32")
    got = ops.layer_normalization(X, gamma, beta, epsilon=1e-3)
    assert_allclose(got, _layer_norm(X64, -1, 1e-3, gamma, beta), loose=5)
    # Normalizing over non-trailing axes reshapes gamma/beta to broadcast.
    g2 = RNG.normal(size=(2, 3)).astype("float32")
    got = ops.layer_normalization(X, g2, g2, axis=(0, 1), epsilon=1e-3)
    assert_allclose(got, _layer_norm(X64, (0, 1), 1e-3, g2[..., None], g2[..., None]), loose=5)
    full = g2[..., None]
    got = ops.layer_normalization(X, full, None, axis=[0, 1], epsilon=1e-3)
    assert_allclose(got, _layer_norm(X64, (0, 1), 1e-3, full), loose=5)


@pytest.mark.half_precision
def test_layer_normalization_half_and_spec():
    half = ops.layer_normalization(X.astype("float16"), epsilon=1e-3)
    assert ops.dtype(half) == "float16"
    assert_allclose(half, _layer_norm(X.astype("float16").astype("float64"), -1, 1e-3), loose=2)
    out = ops.layer_normalization(
        lamina.KerasTensor((None, 3, 4), "int32"), lamina.KerasTensor((4,))
    )
    assert (out.shape, out.dtype) == ((None, 3, 4), "float32")
    assert (
        ops.layer_normalization(
            lamina.KerasTensor((2, 4), "float16"), lamina.KerasTensor((4,), "float32")
        ).dtype
        == "float32"
    )


def test_rms_normalization_matches_numpy():
    eps = config.epsilon()
    rms = np.sqrt((X64**2).mean(axis=-1, keepdims=True) + eps)
    assert_allclose(ops.rms_normalization(X), X64 / rms, loose=5)
    scale = RNG.normal(size=(3,)).astype("float32")
    rms1 = np.sqrt((X64**2).mean(axis=1, keepdims=True) + 1e-3)
    got = ops.rms_normalization(X, scale, axis=1, epsilon=1e-3)
    assert_allclose(got, X64 / rms1 * scale[:, None], loose=5)
    assert_allclose(
        ops.layer_normalization(X, scale, axis=1, epsilon=1e-3, rms_scaling=True),
        X64 / rms1 * scale[:, None],
        loose=5,
    )
    out = ops.rms_normalization(lamina.KerasTensor((None, 4), "bfloat16"))
    assert (out.shape, out.dtype) == ((None, 4), "bfloat16")


@pytest.mark.parametrize(("axis", "order"), [(-1, 2), (1, 1), ((1, 2), 3), (None, 2)])
def test_normalize_matches_numpy(axis, order):
    got = ops.normalize(X, axis=axis, order=order)
    norm = (np.abs(X64) ** order).sum(axis=axis, keepdims=True) ** (1 / order)
    assert ops.dtype(got) == "float32"
    assert_allclose(got, X64 / norm, loose=2)


def test_normalize_zero_vector_and_spec():
    assert_allclose(ops.normalize(np.zeros((2, 3), "float32")), np.zeros((2, 3)))
    assert_allclose(ops.normalize(np.array([3, 4], "int32")), [0.6, 0.8])
    out = ops.normalize(lamina.KerasTensor((None, 4), "uint8"), axis=0)
    assert (out.shape, out.dtype) == ((None, 4), "float32")


G = np.ones((4,), "float32")


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: ops.moments(X, axes=3), ValueError, "moments"),
        (lambda: ops.moments(X.astype("complex64"), axes=0), TypeError, "moments"),
        (lambda: ops.batch_normalization(X, G, G, axis=1), ValueError, "batch_normalization"),
        (
            lambda: ops.batch_normalization(X, np.ones((3, 1)), G[:3], axis=1),
            ValueError,
            "batch_normalization",
        ),
        (lambda: ops.batch_normalization(X, G, G, axis=5), ValueError, "batch_normalization"),
        (lambda: ops.layer_normalization(X, G[:3]), ValueError, "layer_normalization"),
        (lambda: ops.layer_normalization(X, np.ones((3, 4))), ValueError, "layer_normalization"),
        (lambda: ops.layer_normalization(X, axis=(0, 0)), ValueError, "layer_normalization"),
        (lambda: ops.layer_normalization(X, unknown=1), TypeError, "layer_normalization"),
        (lambda: ops.layer_normalization(X, epsilon="a"), TypeError, "layer_normalization"),
        (lambda: ops.rms_normalization(X, G[:2]), ValueError, "rms_normalization"),
        (
            lambda: ops.rms_normalization(lamina.KerasTensor((2, 4), "string")),
            TypeError,
            "rms_normalization",
        ),
        (lambda: ops.normalize(X, order=0), ValueError, "normalize"),
        (lambda: ops.normalize(X, order=2.5), ValueError, "normalize"),
        (lambda: ops.normalize(np.float32(1.0)), ValueError, "normalize"),
    ],
)
def test_normalization_errors(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()
