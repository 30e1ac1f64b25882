"""Fused recurrent kernels (`lamina.backend.protocols.fused.FusedKernels`) on TensorFlow.

One `tf.while_loop` per sequence, traced into the `tf.function` step: the input
projection of every step is one matmul before the loop, so each iteration does only the
recurrent matmul and the gate arithmetic. Masks of any shape are handled in the loop, and
the number of steps may be unknown until run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

_Step = Callable[[Any, tuple[Any, ...]], tuple[Any, tuple[Any, ...]]]


def _loop(
    step: _Step,
    projected: Any,
    states: tuple[Any, ...],
    mask: Any | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[Any, tuple[Any, ...]]:
    """Run ``step(x_t, states) -> (output, states)`` over axis 1 of `projected`."""
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
    projected = tf.matmul(inputs, kernel)
    if bias is not None:
        projected = projected + bias

    def step(x: Any, states: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
        h_tm1, c_tm1 = states
        i, f, g, o = tf.split(x + tf.matmul(h_tm1, recurrent_kernel), 4, axis=-1)
        c_t = tf.sigmoid(f) * c_tm1 + tf.sigmoid(i) * tf.tanh(g)
        h_t = tf.sigmoid(o) * tf.tanh(c_t)
        return h_t, (h_t, c_t)

    out, (h_n, c_n) = _loop(step, projected, (h, c), mask, go_backwards, zero_output_for_mask)
    return out, h_n, c_n


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
    projected = tf.matmul(inputs, kernel)
    recurrent_bias = None
    if bias is not None:
        projected = projected + (bias[0] if reset_after else bias)
        recurrent_bias = bias[1] if reset_after else None
    u_zr, u_h = tf.split(recurrent_kernel, [2 * int(h.shape[-1]), int(h.shape[-1])], axis=-1)

    def step(x: Any, states: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
        (h_tm1,) = states
        x_z, x_r, x_h = tf.split(x, 3, axis=-1)
        if reset_after:
            inner = tf.matmul(h_tm1, recurrent_kernel)
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
            r_z, r_r, r_h = tf.split(inner, 3, axis=-1)
            z = tf.sigmoid(x_z + r_z)
            r = tf.sigmoid(x_r + r_r)
            candidate = tf.tanh(x_h + r * r_h)
        else:
            r_z, r_r = tf.split(tf.matmul(h_tm1, u_zr), 2, axis=-1)
            z = tf.sigmoid(x_z + r_z)
            r = tf.sigmoid(x_r + r_r)
            candidate = tf.tanh(x_h + tf.matmul(r * h_tm1, u_h))
        h_t = z * h_tm1 + (1 - z) * candidate
        return h_t, (h_t,)

    out, (h_n,) = _loop(step, projected, (h,), mask, go_backwards, zero_output_for_mask)
    return out, h_n
