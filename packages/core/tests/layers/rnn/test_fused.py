"""The backends' fused LSTM/GRU kernels against the generic loop on the same weights:
outputs, final states and gradients (1e-5), with and without masks, both directions; and
gradients against finite differences of the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability
from lamina.testing import assert_allclose

B, T, F, U = 3, 6, 4, 5

needs_fused = pytest.mark.skipif(
    lamina.backend.current().fused is None,
    reason=f"backend {lamina.backend.backend()!r} offers no fused recurrent kernels",
)


def _mask(kind):
    if kind is None:
        return None
    mask = np.ones((B, T), bool)
    if kind == "right":
        mask[0, 4:] = False
        mask[2, 1:] = False
    else:
        mask = np.random.default_rng(1).random((B, T)) > 0.4
        mask[:, 0] = True
    return mask


def _loss_and_grads(layer, x, mask, weights):
    """``(outputs, states, grads of sum(outputs * weights) w.r.t. trainable weights)``."""
    name = lamina.backend.backend()
    trainable = layer.trainable_variables
    if name == "jax":
        import jax
        import jax.numpy as jnp

        non_trainable = [v.value for v in layer.non_trainable_variables]

        def loss(values):
            (out, *states), _ = layer.stateless_call(values, non_trainable, x, mask=mask)
            return jnp.sum(out * weights), (out, states)

        grads, (out, states) = jax.grad(loss, has_aux=True)([v.value for v in trainable])
        return out, states, grads
    if name == "torch":
        import torch

        out, *states = layer(x, mask=mask)
        loss = (out * torch.as_tensor(weights)).sum()
        grads = torch.autograd.grad(loss, [v.value for v in trainable])
        return out, states, grads
    import tensorflow as tf

    with tf.GradientTape() as tape:
        out, *states = layer(x, mask=mask)
        loss = tf.reduce_sum(out * weights)
    return out, states, tape.gradient(loss, trainable)


def _pair(cls, **kwargs):
    fused = cls(U, use_cudnn="auto", return_sequences=True, return_state=True, **kwargs)
    generic = cls(U, use_cudnn=False, return_sequences=True, return_state=True, **kwargs)
    fused.build((B, T, F))
    generic.build((B, T, F))
    rng = np.random.default_rng(5)
    values = [rng.uniform(-0.6, 0.6, w.shape).astype(w.dtype) for w in fused.get_weights()]
    fused.set_weights(values)
    generic.set_weights(values)
    return fused, generic


CASES = [
    ("LSTM", {}),
    ("LSTM", {"use_bias": False}),
    ("LSTM", {"zero_output_for_mask": True}),
    ("GRU", {}),
    ("GRU", {"use_bias": False}),
    ("GRU", {"reset_after": False}),
    ("GRU", {"zero_output_for_mask": True}),
]


@needs_fused
@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("mask_kind", [None, "right", "scattered"])
@pytest.mark.parametrize("kind,kwargs", CASES, ids=[f"{k}-{v}" for k, v in CASES])
def test_fused_matches_generic(kind, kwargs, mask_kind, go_backwards):
    fused, generic = _pair(getattr(layers, kind), go_backwards=go_backwards, **kwargs)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((B, T, F)).astype("float32")
    weights = rng.standard_normal((B, T, U)).astype("float32")
    mask = _mask(mask_kind)
    out_f, states_f, grads_f = _loss_and_grads(fused, x, mask, weights)
    out_g, states_g, grads_g = _loss_and_grads(generic, x, mask, weights)
    assert_allclose(out_f, ops.convert_to_numpy(out_g), loose=10)
    for a, b in zip(states_f, states_g):
        assert_allclose(a, ops.convert_to_numpy(b), loose=10)
    assert len(grads_f) == len(grads_g) == len(fused.trainable_variables)
    for a, b in zip(grads_f, grads_g):
        assert_allclose(a, ops.convert_to_numpy(b), loose=10)


@needs_fused
def test_use_cudnn_true_runs_the_fused_kernel_where_it_applies():
    x = np.random.default_rng(3).standard_normal((B, T, F)).astype("float32")
    for cls in (layers.LSTM, layers.GRU):
        layer = cls(U, use_cudnn=True)
        assert tuple(layer(x).shape) == (B, U)


@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.requires(Capability.FLOAT64)
@pytest.mark.parametrize("path", ["auto", False])
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gradients_match_finite_differences(kind, path, ref):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((B, T, F))
    weights = rng.standard_normal((B, T, U))
    mask = _mask("right")
    layer = getattr(layers, kind)(
        U, use_cudnn=path, return_sequences=True, return_state=True, dtype="float64"
    )
    layer.build((B, T, F))
    _, _, grads = _loss_and_grads(layer, x, mask, weights)
    values = [w.astype(np.float64) for w in layer.get_weights()]

    def loss(vals):
        kernel, recurrent, bias = vals
        if kind == "LSTM":
            step = lambda a, s: ref.lstm_step(a, s, kernel, recurrent, bias)  # noqa: E731
            states = [np.zeros((B, U)), np.zeros((B, U))]
        else:
            step = lambda a, s: ref.gru_step(a, s, kernel, recurrent, bias)  # noqa: E731
            states = [np.zeros((B, U))]
        out, _ = ref.run(step, x, states, mask=mask)
        return float(np.sum(out * weights))

    eps = 1e-6
    for index, value in enumerate(values):
        numeric = np.zeros_like(value)
        for pos in np.ndindex(value.shape):
            plus = [v.copy() for v in values]
            minus = [v.copy() for v in values]
            plus[index][pos] += eps
            minus[index][pos] -= eps
            numeric[pos] = (loss(plus) - loss(minus)) / (2 * eps)
        np.testing.assert_allclose(
            ops.convert_to_numpy(grads[index]), numeric, rtol=1e-5, atol=1e-6
        )
