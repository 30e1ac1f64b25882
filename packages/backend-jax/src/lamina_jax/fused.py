"""Fused recurrent kernels (`lamina.backend.protocols.fused.FusedKernels`) on JAX.

One `lax.scan` per sequence, traced into the jitted step: the input projection of every
step is one matmul before the loop, so each iteration does only the recurrent matmul and
the gate arithmetic. Masks of any shape are handled inside the scan.

Each kernel is itself a `jax.jit` function (its flags static): inside a compiled step it
is inlined, and an eager call (``run_eagerly``, a layer called on arrays) reuses the
compiled loop instead of tracing a fresh `lax.scan` every time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

_Step = Callable[[Any, tuple[Any, ...]], tuple[Any, tuple[Any, ...]]]


def _scan(
    step: _Step,
    projected: Any,
    states: tuple[Any, ...],
    mask: Any | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[Any, tuple[Any, ...]]:
    """Run ``step(x_t, states) -> (output, states)`` over axis 1 of `projected`."""
    xs = jnp.swapaxes(projected, 0, 1)
    if mask is None:

        def plain(carry: tuple[Any, ...], x: Any) -> tuple[tuple[Any, ...], Any]:
            out, new = step(x, carry)
            return new, out

        final, ys = lax.scan(plain, states, xs, reverse=go_backwards)
    else:
        ms = jnp.swapaxes(mask, 0, 1)[:, :, None]

        def masked(carry: Any, inp: Any) -> tuple[Any, Any]:
            (old, previous), (x, m) = carry, inp
            out, new = step(x, old)
            out = jnp.where(m, out, jnp.zeros_like(out) if zero_output_for_mask else previous)
            new = tuple(jnp.where(m, n, o) for n, o in zip(new, old))
            return (new, out), out

        init = (states, jnp.zeros_like(states[0]))
        (final, _), ys = lax.scan(masked, init, (xs, ms), reverse=go_backwards)
    if go_backwards:
        ys = jnp.flip(ys, 0)  # Keras returns outputs in processing order
    return jnp.swapaxes(ys, 0, 1), final


@functools.partial(jax.jit, static_argnames=("go_backwards", "zero_output_for_mask"))
def lstm(
    inputs: Any,
    h: Any,
    c: Any,
    kernel: Any,
    recurrent_kernel: Any,
    bias: Any | None,
    mask: Any | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[Any, Any, Any] | None:
    projected = inputs @ kernel
    if bias is not None:
        projected = projected + bias

    def step(x: Any, states: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
        h_tm1, c_tm1 = states
        i, f, g, o = jnp.split(x + h_tm1 @ recurrent_kernel, 4, axis=-1)
        c_t = jax.nn.sigmoid(f) * c_tm1 + jax.nn.sigmoid(i) * jnp.tanh(g)
        h_t = jax.nn.sigmoid(o) * jnp.tanh(c_t)
        return h_t, (h_t, c_t)

    out, (h_n, c_n) = _scan(step, projected, (h, c), mask, go_backwards, zero_output_for_mask)
    return out, h_n, c_n


@functools.partial(jax.jit, static_argnames=("go_backwards", "zero_output_for_mask", "reset_after"))
def gru(
    inputs: Any,
    h: Any,
    kernel: Any,
    recurrent_kernel: Any,
    bias: Any | None,
    mask: Any | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
    reset_after: bool,
) -> tuple[Any, Any] | None:
    projected = inputs @ kernel
    recurrent_bias = None
    if bias is not None:
        projected = projected + (bias[0] if reset_after else bias)
        recurrent_bias = bias[1] if reset_after else None
    units = h.shape[-1]
    u_zr, u_h = recurrent_kernel[:, : 2 * units], recurrent_kernel[:, 2 * units :]

    def step(x: Any, states: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
        (h_tm1,) = states
        x_z, x_r, x_h = jnp.split(x, 3, axis=-1)
        if reset_after:
            inner = h_tm1 @ recurrent_kernel
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
            r_z, r_r, r_h = jnp.split(inner, 3, axis=-1)
            z = jax.nn.sigmoid(x_z + r_z)
            r = jax.nn.sigmoid(x_r + r_r)
            candidate = jnp.tanh(x_h + r * r_h)
        else:
            r_z, r_r = jnp.split(h_tm1 @ u_zr, 2, axis=-1)
            z = jax.nn.sigmoid(x_z + r_z)
            r = jax.nn.sigmoid(x_r + r_r)
            candidate = jnp.tanh(x_h + (r * h_tm1) @ u_h)
        h_t = z * h_tm1 + (1 - z) * candidate
        return h_t, (h_t,)

    out, (h_n,) = _scan(step, projected, (h,), mask, go_backwards, zero_output_for_mask)
    return out, h_n
