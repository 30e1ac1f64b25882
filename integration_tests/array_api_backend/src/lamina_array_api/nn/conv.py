"""array API: convolution, pooling, attention, CTC, unfold and fold.

Windows are gathered with strided basic slices (one per kernel tap) and stacked; a
convolution is then one batched matmul per group.
"""

from __future__ import annotations

import itertools
import math

from lamina.backend.kit import Ints, Pads, Pair, PatchGrid, Tensor, grow_and_crop, patch_grid
from lamina_array_api._xp import index_grid, pad_constant, quiet, scatter_rows, xp

__all__ = [
    "average_pool",
    "conv",
    "conv_transpose",
    "ctc_loss",
    "fold",
    "max_pool",
    "unfold",
]


def _to_last(x: Tensor, data_format: str) -> Tensor:
    return x if data_format == "channels_last" else xp.moveaxis(x, 1, -1)


def _from_last(x: Tensor, data_format: str) -> Tensor:
    return x if data_format == "channels_last" else xp.moveaxis(x, -1, 1)


def _pad(x: Tensor, pads: Pads, value: float = 0.0) -> Tensor:
    """Pad (or crop, for negative amounts) the spatial dims of a channels_last array."""
    grow, crop = grow_and_crop(pads)
    x = pad_constant(x, [(0, 0), *grow, (0, 0)], value)
    return x[(slice(None), *crop, slice(None))]


def _windows(x: Tensor, window: Ints, strides: Ints, dilation: Ints) -> Tensor:
    """``(N, *out, K, C)`` window taps of a padded channels_last array, K = prod(window)."""
    spatial = x.shape[1:-1]
    outs = [
        (n - (k - 1) * d - 1) // s + 1
        for n, k, s, d in zip(spatial, window, strides, dilation, strict=True)
    ]
    taps = []
    for offsets in itertools.product(*(range(k) for k in window)):
        key = tuple(
            slice(o * d, o * d + (m - 1) * s + 1, s)
            for o, d, s, m in zip(offsets, dilation, strides, outs, strict=True)
        )
        taps.append(x[(slice(None), *key, slice(None))])
    return xp.stack(taps, axis=-2)


def _conv_last(x: Tensor, kernel: Tensor, strides: Ints, pads: Pads, dilation: Ints) -> Tensor:
    n = kernel.ndim - 2
    patches = _windows(_pad(x, pads), tuple(kernel.shape[:-2]), strides, dilation)
    kin, out = kernel.shape[-2:]
    groups = x.shape[-1] // kin
    batch_out = patches.shape[: n + 1]
    taps = patches.shape[-2]
    rows = math.prod(batch_out)
    # (rows, taps, G, Cg) -> (G, rows, taps * Cg); kernel (taps, Cg, G, Og) -> (G, taps * Cg, Og)
    p = xp.reshape(patches, (rows, taps, groups, kin))
    p = xp.reshape(xp.permute_dims(p, (2, 0, 1, 3)), (groups, rows, taps * kin))
    k = xp.reshape(kernel, (taps, kin, groups, out // groups))
    k = xp.reshape(xp.permute_dims(k, (2, 0, 1, 3)), (groups, taps * kin, out // groups))
    y = xp.permute_dims(p @ k, (1, 0, 2))  # (rows, G, Og): output channel g * Og + o
    return xp.reshape(y, (*batch_out, out))


def conv(
    inputs: Tensor,
    kernel: Tensor,
    strides: Ints,
    padding: Pads,
    data_format: str,
    dilation_rate: Ints,
) -> Tensor:
    y = _conv_last(_to_last(inputs, data_format), kernel, strides, padding, dilation_rate)
    return _from_last(y, data_format)


def conv_transpose(
    inputs: Tensor,
    kernel: Tensor,
    strides: Ints,
    padding: Pads,
    data_format: str,
    dilation_rate: Ints,
) -> Tensor:
    x = _to_last(inputs, data_format)
    n = len(strides)
    # Dilate the input by the strides: zeros between samples, one axis at a time.
    for axis, s in enumerate(strides, start=1):
        if s == 1:
            continue
        length = x.shape[axis]
        moved = xp.moveaxis(x, axis, -1)
        zeros = xp.zeros((*moved.shape, s - 1), dtype=x.dtype)
        spread = xp.reshape(xp.concat([moved[..., None], zeros], axis=-1), (*moved.shape[:-1], -1))
        x = xp.moveaxis(spread[..., : (length - 1) * s + 1], -1, axis)
    k = xp.flip(kernel, axis=tuple(range(n)))
    k = xp.permute_dims(k, (*range(n), n + 1, n))
    y = _conv_last(x, k, (1,) * n, padding, dilation_rate)
    return _from_last(y, data_format)


def _lowest(x: Tensor) -> float | int:
    if xp.isdtype(x.dtype, "real floating"):
        return -math.inf
    return xp.iinfo(x.dtype).min


def max_pool(
    inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str
) -> Tensor:
    x = _to_last(inputs, data_format)
    w = _windows(_pad(x, padding, _lowest(x)), pool_size, strides, (1,) * len(pool_size))
    return _from_last(xp.max(w, axis=-2), data_format)


@quiet
def average_pool(
    inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str
) -> Tensor:
    x = _to_last(inputs, data_format)
    ones = (1,) * len(pool_size)
    total = xp.sum(_windows(_pad(x, padding), pool_size, strides, ones), axis=-2)
    mask = _pad(xp.ones((1, *x.shape[1:-1], 1), dtype=x.dtype), padding)
    count = xp.sum(_windows(mask, pool_size, strides, ones), axis=-2)
    return _from_last(total / count, data_format)


@quiet
def ctc_loss(
    target: Tensor, output: Tensor, target_length: Tensor, output_length: Tensor, mask_index: int
) -> Tensor:
    logits = xp.astype(output, xp.float64)  # (B, T, C)
    top = xp.max(logits, axis=-1, keepdims=True)
    logp = logits - top - xp.log(xp.sum(xp.exp(logits - top), axis=-1, keepdims=True))
    batch, time = logp.shape[:2]
    labels = target.shape[1]
    blank = xp.full((batch, labels), mask_index, dtype=xp.int64)
    pairs = xp.stack([blank, xp.astype(target, xp.int64)], axis=-1)
    ext = xp.concat([xp.reshape(pairs, (batch, 2 * labels)), blank[:, :1]], axis=1)
    width = ext.shape[1]
    neg_inf = xp.asarray(-math.inf, dtype=xp.float64)
    # s may come from s - 2 when it holds a label differing from the label at s - 2.
    differs = (ext[:, 2:] != mask_index) & (ext[:, 2:] != ext[:, :-2])
    skip = xp.concat([xp.zeros((batch, min(2, width)), dtype=xp.bool), differs], axis=1)
    start = xp.take_along_axis(logp[:, 0, :], ext, axis=1)
    first_two = index_grid(width)[None, :] < 2
    alpha = xp.where(first_two, start, neg_inf)
    lengths = xp.astype(output_length, xp.int64)
    for t in range(1, time):
        prev1 = xp.concat([xp.full((batch, 1), -math.inf, dtype=xp.float64), alpha[:, :-1]], axis=1)
        prev2 = xp.concat([xp.full((batch, 2), -math.inf, dtype=xp.float64), alpha[:, :-2]], axis=1)
        prev2 = xp.where(skip, prev2[:, :width], neg_inf)
        emit = xp.take_along_axis(logp[:, t, :], ext, axis=1)
        step = xp.logaddexp(xp.logaddexp(alpha, prev1[:, :width]), prev2) + emit
        alpha = xp.where((t < lengths)[:, None], step, alpha)
    end = 2 * xp.astype(target_length, xp.int64)
    last = xp.take_along_axis(alpha, end[:, None], axis=1)[:, 0]
    before = xp.take_along_axis(alpha, xp.maximum(end - 1, 0)[:, None], axis=1)[:, 0]
    before = xp.where(end > 0, before, neg_inf)
    return xp.astype(-xp.logaddexp(last, before), output.dtype)


def _flat_positions(grid: PatchGrid) -> Tensor:
    return xp.astype(xp.asarray(grid.positions.reshape(-1)), xp.int64)


def unfold(x: Tensor, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Tensor:
    n, c, h, w = x.shape
    grid = patch_grid((h, w), kernel_size, dilation, padding, stride)
    flat = xp.reshape(pad_constant(x, grid.pad_widths), (n, c, -1))
    out = xp.take(flat, _flat_positions(grid), axis=-1)
    return xp.reshape(out, (n, c * grid.taps, grid.blocks))


def fold(
    x: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    grid = patch_grid(output_size, kernel_size, dilation, padding, stride)
    n, c = x.shape[0], x.shape[1] // grid.taps
    # Scatter-add along a leading axis: (K * L, N, C) summed into (cells, N, C).
    rows = xp.moveaxis(xp.reshape(x, (n, c, -1)), -1, 0)
    out = scatter_rows(_flat_positions(grid), rows, grid.cells)
    return xp.reshape(xp.moveaxis(out, 0, -1), (n, c, *grid.padded))[grid.crop]
