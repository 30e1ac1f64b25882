"""NumPy loop references for the conv/pool layer tests (channels_last, float64)."""

from __future__ import annotations

import itertools

import numpy as np


def same_pads(sizes, kernel, strides, dilation):
    """TF/Keras 'same' padding: output ceil(n/s), the odd extra row goes after."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, strides, dilation):
        span = (k - 1) * d + 1
        total = max((-(-n // s) - 1) * s + span - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def conv(x, w, strides, padding, dilation, groups=1):
    """Grouped N-D cross-correlation. x: (b, *sp, c); w: (*k, c // groups, out)."""
    x = np.asarray(x, np.float64)
    w = np.asarray(w, np.float64)
    rank = x.ndim - 2
    ksize = w.shape[:rank]
    if padding == "same":
        pads = same_pads(x.shape[1:-1], ksize, strides, dilation)
    elif padding == "causal":
        pads = [((ksize[0] - 1) * dilation[0], 0)]
    else:
        pads = [(0, 0)] * rank
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    out_sizes = [
        (n - ((k - 1) * d + 1)) // s + 1
        for n, k, s, d in zip(x.shape[1:-1], ksize, strides, dilation)
    ]
    cin = w.shape[-2]
    cout = w.shape[-1]
    per_group = cout // groups
    out = np.zeros((x.shape[0], *out_sizes, cout))
    for tap in itertools.product(*(range(k) for k in ksize)):
        index = tuple(
            slice(t * d, t * d + (o - 1) * s + 1, s)
            for t, d, s, o in zip(tap, dilation, strides, out_sizes)
        )
        patch = x[(slice(None), *index, slice(None))]
        for g in range(groups):
            xs = patch[..., g * cin : (g + 1) * cin]
            ws = w[tap][:, g * per_group : (g + 1) * per_group]
            out[..., g * per_group : (g + 1) * per_group] += xs @ ws
    return out


def depthwise(x, w, strides, padding, dilation):
    """w: (*k, c, multiplier); output channel c * m + j as in TF."""
    c, m = w.shape[-2:]
    grouped = w.reshape(*w.shape[:-2], 1, c * m)
    return conv(x, grouped, strides, padding, dilation, groups=c)


def conv_transpose(x, w, strides, padding, dilation, output_padding=None):
    """Scatter form of the transposed conv. x: (b, *sp, c); w: (*k, out, c)."""
    x = np.asarray(x, np.float64)
    w = np.asarray(w, np.float64)
    rank = x.ndim - 2
    ksize = w.shape[:rank]
    lengths, befores = [], []
    for i, (n, k, s, d) in enumerate(zip(x.shape[1:-1], ksize, strides, dilation)):
        span = (k - 1) * d + 1
        if output_padding is None:
            length = n * s + (max(span - s, 0) if padding == "valid" else 0)
        else:
            pad = span // 2 if padding == "same" else 0
            length = (n - 1) * s + span - 2 * pad + output_padding[i]
        lengths.append(length)
        total = max((n - 1) * s + span - length, 0) if padding == "same" else 0
        befores.append(total // 2)
    full = [L + b + ((k - 1) * d + 1) for L, b, k, d in zip(lengths, befores, ksize, dilation)]
    out = np.zeros((x.shape[0], *[f + s * n for f, s, n in zip(full, strides, x.shape[1:-1])],
                    w.shape[-2]))  # fmt: skip
    for tap in itertools.product(*(range(k) for k in ksize)):
        contrib = x @ w[tap].T  # (b, *sp, out)
        index = tuple(
            slice(t * d, t * d + (n - 1) * s + 1, s)
            for t, d, s, n in zip(tap, dilation, strides, x.shape[1:-1])
        )
        out[(slice(None), *index, slice(None))] += contrib
    crop = tuple(slice(b, b + L) for b, L in zip(befores, lengths))
    return out[(slice(None), *crop, slice(None))]


def pool(x, size, strides, padding, mode):
    """Max/average pooling; 'same' pads are ignored (not counted in the mean)."""
    x = np.asarray(x, np.float64)
    rank = x.ndim - 2
    pads = same_pads(x.shape[1:-1], size, strides, (1,) * rank) if padding == "same" else [
        (0, 0)
    ] * rank
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=fill)
    valid = np.pad(np.ones(x.shape[1:-1]), pads)
    out_sizes = [(n - k) // s + 1 for n, k, s in zip(xp.shape[1:-1], size, strides)]
    out = np.zeros((x.shape[0], *out_sizes, x.shape[-1]))
    for pos in itertools.product(*(range(o) for o in out_sizes)):
        window = tuple(slice(p * s, p * s + k) for p, s, k in zip(pos, strides, size))
        block = xp[(slice(None), *window, slice(None))]
        axes = tuple(range(1, rank + 1))
        if mode == "max":
            value = block.max(axis=axes)
        else:
            value = block.sum(axis=axes) / valid[window].sum()
        out[(slice(None), *pos, slice(None))] = value
    return out


def to_first(x):
    """channels_last -> channels_first."""
    return np.moveaxis(x, -1, 1)


def to_last(x):
    """channels_first -> channels_last."""
    return np.moveaxis(x, 1, -1)
