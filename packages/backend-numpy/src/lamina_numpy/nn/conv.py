"""numpy: convolution, pooling, attention, CTC and patch ops (windows via stride tricks)."""

from __future__ import annotations

import string

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from lamina.backend.kit import InLayout, Ints, Pads, Pair, Tensor, grow_and_crop, patch_grid
from lamina_numpy._bfloat16 import via_float32

_LAST = InLayout("channels_last", np.moveaxis)
"""The sliding-window kernels below read channels_last arrays."""


def _pad(x: Tensor, pads: Pads, value: float = 0.0) -> Tensor:
    """Pad (or crop, for negative amounts) the spatial dims of a channels_last array."""
    grow, crop = grow_and_crop(pads)
    x = np.pad(x, ((0, 0), *grow, (0, 0)), constant_values=value)
    return x[(slice(None), *crop)]


def _windows(x: Tensor, window: Ints, strides: Ints, dilation: Ints) -> Tensor:
    """``(N, *out, C, *window)`` views of a padded channels_last array."""
    n = len(window)
    spans = tuple((k - 1) * d + 1 for k, d in zip(window, dilation))
    v = sliding_window_view(x, spans, axis=tuple(range(1, n + 1)))
    out = tuple(slice(None, None, s) for s in strides)
    taps = tuple(slice(None, None, d) for d in dilation)
    return v[(slice(None), *out, slice(None), *taps)]


def _conv_last(x: Tensor, kernel: Tensor, strides: Ints, pads: Pads, dilation: Ints) -> Tensor:
    n = kernel.ndim - 2
    patches = _windows(_pad(x, pads), kernel.shape[:-2], strides, dilation)
    kin, out = kernel.shape[-2:]
    groups = x.shape[-1] // kin
    shape = patches.shape
    patches = patches.reshape(*shape[: n + 1], groups, kin, *shape[n + 2 :])
    k = kernel.reshape(*kernel.shape[:-1], groups, out // groups)
    sp, kk = string.ascii_lowercase[:n], string.ascii_lowercase[n : 2 * n]
    spec = f"N{sp}GC{kk},{kk}CGO->N{sp}GO"
    y = via_float32(lambda p, w: np.einsum(spec, p, w, optimize=True), patches, k)
    return y.reshape(*y.shape[:-2], out).astype(x.dtype, copy=False)


conv = _LAST.conv(_conv_last)


def _conv_transpose_last(
    x: Tensor, kernel: Tensor, strides: Ints, padding: Pads, dilation_rate: Ints
) -> Tensor:
    n = len(strides)
    dilated = (x.shape[0], *((d - 1) * s + 1 for d, s in zip(x.shape[1:-1], strides)), x.shape[-1])
    z = np.zeros(dilated, dtype=x.dtype)
    z[(slice(None), *(slice(None, None, s) for s in strides))] = x
    k = np.swapaxes(np.flip(kernel, axis=tuple(range(n))), -1, -2)
    return _conv_last(z, k, (1,) * n, padding, dilation_rate)


conv_transpose = _LAST.conv(_conv_transpose_last)


@_LAST.pool
def max_pool(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    w = _windows(_pad(x, padding, -np.inf), pool_size, strides, (1,) * len(pool_size))
    return w.max(axis=tuple(range(-len(pool_size), 0)))


@_LAST.pool
def average_pool(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    n = len(pool_size)
    axes = tuple(range(-n, 0))
    ones = (1,) * n
    total = _windows(_pad(x, padding), pool_size, strides, ones).sum(axis=axes)
    mask = _pad(np.ones((1, *x.shape[1:-1], 1), dtype=x.dtype), padding)
    count = _windows(mask, pool_size, strides, ones).sum(axis=axes)
    return (total / count).astype(x.dtype, copy=False)


def _log_softmax(x: Tensor) -> Tensor:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def ctc_loss(
    target: Tensor, output: Tensor, target_length: Tensor, output_length: Tensor, mask_index: int
) -> Tensor:
    logp = _log_softmax(output.astype(np.float64))  # (B, T, C)
    batch, time = logp.shape[:2]
    labels = target.shape[1]
    ext = np.full((batch, 2 * labels + 1), mask_index, dtype=np.int64)
    ext[:, 1::2] = target
    width = ext.shape[1]
    # s may skip from s-2 when it holds a label differing from the label at s-2.
    skip = np.zeros_like(ext, dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != mask_index) & (ext[:, 2:] != ext[:, :-2])
    rows = np.arange(batch)[:, None]
    alpha = np.full((batch, width), -np.inf)
    alpha[:, 0] = logp[:, 0, mask_index]
    if width > 1:
        alpha[:, 1] = logp[np.arange(batch), 0, ext[:, 1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in range(1, time):
            prev1 = np.concatenate([np.full((batch, 1), -np.inf), alpha[:, :-1]], axis=1)
            prev2 = np.concatenate([np.full((batch, 2), -np.inf), alpha[:, :-2]], axis=1)
            prev2 = np.where(skip, prev2, -np.inf)
            step = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + logp[rows, t, ext]
            alpha = np.where((t < output_length)[:, None], step, alpha)
        end = 2 * target_length.astype(np.int64)
        last = alpha[np.arange(batch), end]
        before = np.where(end > 0, alpha[np.arange(batch), np.maximum(end - 1, 0)], -np.inf)
        loss = -np.logaddexp(last, before)
    return loss.astype(output.dtype)


def unfold(x: Tensor, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Tensor:
    n, c, h, w = x.shape
    grid = patch_grid((h, w), kernel_size, dilation, padding, stride)
    flat = np.pad(x, grid.pad_widths).reshape(n, c, -1)
    return flat[:, :, grid.positions].reshape(n, c * grid.taps, grid.blocks)


def fold(
    x: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    grid = patch_grid(output_size, kernel_size, dilation, padding, stride)
    n, c = x.shape[0], x.shape[1] // grid.taps
    # Scatter-add along a leading axis: (K * L, N, C) summed into (cells, N, C).
    out = np.zeros((grid.cells, n, c), dtype=x.dtype)
    np.add.at(out, grid.positions.ravel(), np.moveaxis(x.reshape(n, c, -1), -1, 0))
    return np.moveaxis(out, 0, -1).reshape(n, c, *grid.padded)[grid.crop]
