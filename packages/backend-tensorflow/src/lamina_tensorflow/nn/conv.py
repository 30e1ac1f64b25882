"""tensorflow: convolution, pooling, attention, CTC and patch ops (tf.nn on NHWC)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

from lamina.backend.kit import InLayout, Ints, Pads, Pair, Tensor, grow_and_crop, patch_grid

# TF's CPU kernels only support channels_last, so channels_first is transposed around them.
_LAST = InLayout("channels_last", tnp.moveaxis)


def _pad(x: Tensor, pads: Pads, value: float = 0.0) -> Tensor:
    """Pad (or crop, for negative amounts) the spatial dims of a channels_last tensor."""
    grow, crop = grow_and_crop(pads)
    if any(p for pair in grow for p in pair):
        x = tf.pad(x, ((0, 0), *grow, (0, 0)), constant_values=tf.cast(value, x.dtype))
    if any(a < 0 or b < 0 for a, b in pads):
        x = x[(slice(None), *crop)]
    return x


def _conv_last(x: Tensor, kernel: Tensor, strides: Ints, pads: Pads, dilation: Ints) -> Tensor:
    x = _pad(x, pads)
    groups = x.shape[-1] // kernel.shape[-2]
    if groups > 1:
        # Grouped Conv3D has no CPU kernel, and a grouped Conv1D/2D has no filter gradient
        # on CPUs where TF runs without oneDNN (no AVX-512): "filter_size does not have
        # enough elements". Convolve each group and concatenate.
        xs = tf.split(x, groups, axis=-1)
        ks = tf.split(kernel, groups, axis=-1)
        return tf.concat(
            [tf.nn.convolution(a, b, strides, "VALID", dilations=dilation) for a, b in zip(xs, ks)],
            axis=-1,
        )
    return tf.nn.convolution(x, kernel, strides, "VALID", dilations=dilation)


conv = _LAST.conv(_conv_last)


def _depthwise_last(x: Tensor, kernel: Tensor, strides: Ints, pads: Pads, dilation: Ints) -> Tensor:
    # One kernel instead of a group per channel (see `_conv_last`), with CPU gradients.
    n = len(strides)
    strided, dilated = any(s > 1 for s in strides), any(d > 1 for d in dilation)
    # depthwise_conv2d takes strides or dilation, not both, and equal strides.
    if n == 3 or (strided and dilated) or len(set(strides)) > 1:
        shape = kernel.shape
        grouped = tf.reshape(kernel, (*shape[:-2], 1, shape[-2] * shape[-1]))
        return _conv_last(x, grouped, strides, pads, dilation)
    x = _pad(x, pads)
    if n == 1:  # as 2D over a height of 1 (any stride there keeps that height)
        x, kernel = tf.expand_dims(x, 1), tf.expand_dims(kernel, 0)
        strides, dilation = (*strides, *strides), (1, *dilation)
    out = tf.nn.depthwise_conv2d(x, kernel, (1, *strides, 1), "VALID", dilations=dilation)
    return out[:, 0] if n == 1 else out


depthwise_conv = _LAST.conv(_depthwise_last)


def _dilate(x: Tensor, strides: Ints) -> Tensor:
    """Insert ``stride - 1`` zeros between samples along each spatial dim (channels_last)."""
    for axis, s in enumerate(strides, start=1):
        if s == 1:
            continue
        size = x.shape[axis]
        y = tf.expand_dims(x, axis + 1)
        pad = [[0, 0]] * (x.shape.rank + 1)
        pad[axis + 1] = [0, s - 1]
        y = tf.pad(y, pad)
        shape = tf.concat([tf.shape(x)[:axis], [size * s], tf.shape(x)[axis + 1 :]], 0)
        y = tf.reshape(y, shape)
        x = tf.gather(y, tf.range((size - 1) * s + 1), axis=axis)
    return x


@_LAST.conv
def conv_transpose(
    inputs: Tensor, kernel: Tensor, strides: Ints, padding: Pads, dilation_rate: Ints
) -> Tensor:
    n = len(strides)
    x = _dilate(inputs, strides)
    perm = (*range(n), n + 1, n)
    k = tf.transpose(tf.reverse(kernel, axis=list(range(n))), perm)
    return _conv_last(x, k, (1,) * n, padding, dilation_rate)


def _pool(x: Tensor, pool_size: Ints, kind: str, strides: Ints) -> Tensor:
    """`tf.nn.pool` without padding; 3D float16 pools in float32 (TF has no CPU kernel)."""
    if len(pool_size) == 3 and x.dtype == tf.float16:
        return tf.cast(_pool(tf.cast(x, tf.float32), pool_size, kind, strides), tf.float16)
    return tf.nn.pool(x, pool_size, kind, strides, "VALID")


@_LAST.pool
def max_pool(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    return _pool(_pad(x, padding, -np.inf), pool_size, "MAX", strides)


@_LAST.pool
def average_pool(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    total = _pool(_pad(x, padding), pool_size, "AVG", strides)
    if any(p for pair in padding for p in pair):
        # Padded cells must not count: divide by the mean of a padded mask of ones.
        ones = tf.ones((1, *x.shape[1:-1], 1), x.dtype)
        total = total / _pool(_pad(ones, padding), pool_size, "AVG", strides)
    return total


def ctc_loss(
    target: Tensor, output: Tensor, target_length: Tensor, output_length: Tensor, mask_index: int
) -> Tensor:
    work = tf.float64 if output.dtype == tf.float64 else tf.float32
    loss = tf.nn.ctc_loss(
        labels=target,
        logits=tf.cast(output, work),
        label_length=target_length,
        logit_length=output_length,
        logits_time_major=False,
        blank_index=mask_index,
    )
    return tf.cast(loss, output.dtype)


def unfold(x: Tensor, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Tensor:
    c, h, w = x.shape[1:]
    grid = patch_grid((h, w), kernel_size, dilation, padding, stride)
    flat = tf.reshape(tf.pad(x, grid.pad_widths), (-1, c, grid.cells))
    patches = tf.gather(flat, grid.positions, axis=2)
    return tf.reshape(patches, (-1, c * grid.taps, grid.blocks))


def fold(
    x: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    grid = patch_grid(output_size, kernel_size, dilation, padding, stride)
    c = x.shape[1] // grid.taps
    # Scatter-add along a leading axis: (K * L, N, C) summed into (cells, N, C).
    vals = tf.transpose(tf.reshape(x, (-1, c, grid.positions.size)), (2, 0, 1))
    out = tf.math.unsorted_segment_sum(vals, grid.positions.ravel(), grid.cells)
    return tf.reshape(tf.transpose(out, (1, 2, 0)), (-1, c, *grid.padded))[grid.crop]
