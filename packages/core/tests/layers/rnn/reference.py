"""NumPy step-by-step references for the recurrent layers (float64, Keras 3 semantics).

Each reference loops over time in plain Python: masked steps keep the states and output
the previous output (or zeros with `zero_output_for_mask`); `go_backwards` reads the steps
last to first and returns outputs in that order.
"""

from __future__ import annotations

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def simple_rnn_step(x, states, kernel, recurrent_kernel, bias):
    h = np.tanh(x @ kernel + states[0] @ recurrent_kernel + (0 if bias is None else bias))
    return h, [h]


def lstm_step(x, states, kernel, recurrent_kernel, bias):
    h, c = states
    z = x @ kernel + h @ recurrent_kernel + (0 if bias is None else bias)
    i, f, g, o = np.split(z, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]


def gru_step(x, states, kernel, recurrent_kernel, bias, reset_after=True):
    (h,) = states
    units = h.shape[-1]
    if reset_after:
        b_in, b_rec = (0, 0) if bias is None else (bias[0], bias[1])
        xz, xr, xh = np.split(x @ kernel + b_in, 3, axis=-1)
        hz, hr, hh = np.split(h @ recurrent_kernel + b_rec, 3, axis=-1)
        z, r = sigmoid(xz + hz), sigmoid(xr + hr)
        candidate = np.tanh(xh + r * hh)
    else:
        xz, xr, xh = np.split(x @ kernel + (0 if bias is None else bias), 3, axis=-1)
        z = sigmoid(xz + h @ recurrent_kernel[:, :units])
        r = sigmoid(xr + h @ recurrent_kernel[:, units : 2 * units])
        candidate = np.tanh(xh + (r * h) @ recurrent_kernel[:, 2 * units :])
    h = z * h + (1 - z) * candidate
    return h, [h]


def run(step, x, states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Loop `step` over axis 1 of `x`; returns ``(outputs (batch, steps, ...), states)``."""
    x = np.asarray(x, np.float64)
    steps = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    states = [np.asarray(s, np.float64) for s in states]
    previous = None
    outputs = []
    for t in steps:
        out, new_states = step(x[:, t], states)
        if previous is None:
            previous = np.zeros_like(out)
        if mask is not None:
            keep = np.asarray(mask[:, t], bool).reshape((-1,) + (1,) * (out.ndim - 1))
            out = np.where(keep, out, 0.0 if zero_output_for_mask else previous)
            new_states = [np.where(keep, n, s) for n, s in zip(new_states, states)]
        outputs.append(out)
        previous = out
        states = new_states
    return np.stack(outputs, axis=1), states


def weights_of(layer):
    """``(kernel, recurrent_kernel, bias or None)`` of a built SimpleRNN/GRU/LSTM layer."""
    values = [np.asarray(w, np.float64) for w in layer.get_weights()]
    return values[0], values[1], (values[2] if len(values) > 2 else None)


def conv(x, kernel, stride=1, padding="valid"):
    """N-D convolution, channels last: ``x (batch, *spatial, cin)``, ``kernel (*k, cin,
    cout)``; "same" pads as TensorFlow does (the extra pad after)."""
    rank = kernel.ndim - 2
    sizes = kernel.shape[:rank]
    if padding == "same":
        pads = []
        for n, k in zip(x.shape[1 : 1 + rank], sizes):
            out = -(-n // stride)
            total = max((out - 1) * stride + k - n, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, [(0, 0), *pads, (0, 0)])
    out_sizes = [(n - k) // stride + 1 for n, k in zip(x.shape[1 : 1 + rank], sizes)]
    out = np.zeros((x.shape[0], *out_sizes, kernel.shape[-1]))
    for pos in np.ndindex(*out_sizes):
        window = x[(slice(None), *[slice(p * stride, p * stride + k) for p, k in zip(pos, sizes)])]
        out[(slice(None), *pos)] = np.tensordot(window, kernel, axes=rank + 1)
    return out


def conv_lstm_step(x, states, kernel, recurrent_kernel, bias, stride=1, padding="valid"):
    h, c = states
    z = conv(x, kernel, stride, padding) + conv(h, recurrent_kernel, 1, "same")
    if bias is not None:
        z = z + bias
    i, f, g, o = np.split(z, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]
