"""Fused recurrent kernels (`lamina.backend.protocols.fused.FusedKernels`) on TensorFlow.

One `tf.while_loop` per sequence, traced into the `tf.function` step; the kit's
`LoopedKernels` hoists the input projection out of the loop and writes the gate
arithmetic. Masks of any shape are handled in the loop, and the number of steps may be
unknown until run time.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.kit import GateMath, LoopedKernels, LoopFlags, Scanned, States, Step


def _loop(step: Step, projected: Any, states: States, mask: Any, flags: LoopFlags) -> Scanned:
    """Run ``step(x_t, states) -> (output, states)`` over axis 1 of `projected`."""
    go_backwards, zero_output_for_mask = flags
    xs = tf.transpose(projected, [1, 0, 2])
    ms = None if mask is None else tf.transpose(mask, [1, 0])[:, :, None]
    if go_backwards:
        xs = tf.reverse(xs, [0])
        ms = None if ms is None else tf.reverse(ms, [0])
    n = tf.shape(xs)[0]
    outputs = tf.TensorArray(projected.dtype, size=n, element_shape=states[0].shape)
    # Steps are read from TensorArrays: the gradient of `xs[t]` would be a dense tensor of
    # the whole sequence at every step.
    x_steps = tf.TensorArray(xs.dtype, size=n, element_shape=xs.shape[1:]).unstack(xs)
    m_steps = None
    if ms is not None:
        m_steps = tf.TensorArray(ms.dtype, size=n, element_shape=ms.shape[1:]).unstack(ms)

    def body(t: Any, carry: tuple[Any, ...], previous: Any, outputs: Any) -> Any:
        out, new = step(x_steps.read(t), carry)
        if m_steps is not None:
            m = m_steps.read(t)
            out = tf.where(m, out, tf.zeros_like(out) if zero_output_for_mask else previous)
            new = tuple(tf.where(m, a, b) for a, b in zip(new, carry))
        return t + 1, new, out, outputs.write(t, out)

    _, final, _, outputs = tf.while_loop(
        lambda t, *_: t < n,
        body,
        (tf.constant(0), states, tf.zeros_like(states[0]), outputs),
    )
    return tf.transpose(outputs.stack(), [1, 0, 2]), tuple(final)


_KERNELS = LoopedKernels(_loop, GateMath(tf.sigmoid, tf.tanh, tf.split))
lstm = _KERNELS.lstm
gru = _KERNELS.gru
