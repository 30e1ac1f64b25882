"""Fused recurrent kernels (`lamina.backend.protocols.fused.FusedKernels`) on JAX.

One `lax.scan` per sequence, traced into the jitted step; the kit's `LoopedKernels` hoists
the input projection out of the loop and writes the gate arithmetic. Masks of any shape are
handled inside the scan.

Each kernel is itself a `jax.jit` function (its flags static): inside a compiled step it
is inlined, and an eager call (``run_eagerly``, a layer called on arrays) reuses the
compiled loop instead of tracing a fresh `lax.scan` every time.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from lamina.backend.kit import GateMath, LoopedKernels, LoopFlags, Scanned, States, Step


def _scan(step: Step, projected: Any, states: States, mask: Any, flags: LoopFlags) -> Scanned:
    """Run ``step(x_t, states) -> (output, states)`` over axis 1 of `projected`."""
    go_backwards, zero_output_for_mask = flags
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


_KERNELS = LoopedKernels(_scan, GateMath(jax.nn.sigmoid, jnp.tanh, jnp.split))
lstm = jax.jit(_KERNELS.lstm, static_argnames=("go_backwards", "zero_output_for_mask"))
gru = jax.jit(_KERNELS.gru, static_argnames=("go_backwards", "zero_output_for_mask", "reset_after"))
