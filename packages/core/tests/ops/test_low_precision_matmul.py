"""Products in bfloat16 and float16 keep their dtype (NumPy's bfloat16 matmul widened it).

Each result is compared with a float64 NumPy reference computed from the same (rounded)
half-precision inputs, within the half-precision tolerance of `lamina.testing`.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose

HALF = ["bfloat16", "float16"]
pytestmark = pytest.mark.half_precision
RNG = np.random.default_rng(4)


def _half(shape, dtype):
    """A tensor of `dtype` and its exact value as float64."""
    x = ops.convert_to_tensor(RNG.uniform(-1.0, 1.0, size=shape).astype("float32"), dtype)
    return x, ops.convert_to_numpy(ops.cast(x, "float32")).astype("float64")


def _check(out, expected, dtype):
    assert ops.dtype(out) == dtype
    assert_allclose(out, expected, dtype=dtype)


@pytest.mark.parametrize("dtype", HALF)
def test_matmul_einsum_dot_tensordot_keep_the_dtype(dtype):
    a, na = _half((2, 3, 8), dtype)
    b, nb = _half((8, 5), dtype)
    _check(ops.matmul(a, b), na @ nb, dtype)
    _check(ops.einsum("bij,jk->bik", a, b), na @ nb, dtype)
    _check(ops.dot(a[0], b), na[0] @ nb, dtype)
    _check(ops.tensordot(a, b, axes=1), np.tensordot(na, nb, axes=1), dtype)
    v, nv = _half((8,), dtype)
    _check(ops.matmul(v, b), nv @ nb, dtype)
    _check(ops.inner(v, v), np.inner(nv, nv), dtype)


def _conv_reference(x, kernel):
    """A 'valid', stride-1 channels_last 2-D convolution in float64."""
    kh, kw = kernel.shape[:2]
    h, w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], h, w, kernel.shape[-1]))
    for i in range(h):
        for j in range(w):
            out[:, i, j] = np.einsum("nabc,abco->no", x[:, i : i + kh, j : j + kw], kernel)
    return out


@pytest.mark.parametrize("dtype", HALF)
def test_conv_and_attention_keep_the_dtype(dtype):
    x, nx = _half((1, 5, 5, 2), dtype)
    k, nk = _half((3, 3, 2, 4), dtype)
    _check(ops.conv(x, k), _conv_reference(nx, nk), dtype)
    dk, ndk = _half((3, 3, 2, 1), dtype)
    depthwise = np.concatenate(
        [_conv_reference(nx[..., c : c + 1], ndk[:, :, c : c + 1]) for c in range(2)], axis=-1
    )
    _check(ops.depthwise_conv(x, dk), depthwise, dtype)
    q, nq = _half((1, 4, 2, 8), dtype)
    logits = np.einsum("btnh,bsnh->bnts", nq, nq) / np.sqrt(8.0)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    _check(ops.dot_product_attention(q, q, q), np.einsum("bnts,bsnh->btnh", probs, nq), dtype)


@pytest.mark.parametrize("dtype", HALF)
def test_layers_under_a_mixed_policy_compute_in_the_half_dtype(dtype):
    policy = f"mixed_{dtype}"
    x = RNG.uniform(-1.0, 1.0, size=(2, 6)).astype("float32")
    dense = layers.Dense(3, dtype=policy)
    out = dense(x)
    kernel, bias = (
        ops.convert_to_numpy(ops.cast(ops.cast(v.value, dtype), "float32")).astype("float64")
        for v in dense.trainable_variables
    )
    rounded = ops.convert_to_numpy(ops.cast(ops.cast(x, dtype), "float32")).astype("float64")
    _check(out, rounded @ kernel + bias, dtype)
    assert ops.dtype(layers.EinsumDense("ab,bc->ac", output_shape=3, dtype=policy)(x)) == dtype
    images = RNG.uniform(size=(1, 5, 5, 2)).astype("float32")
    assert ops.dtype(layers.Conv2D(4, 3, dtype=policy)(images)) == dtype
    model = lamina.Sequential([layers.Input((6,)), layers.Dense(4, dtype=policy)])
    assert model.predict(x, verbose=0).dtype.name == dtype
