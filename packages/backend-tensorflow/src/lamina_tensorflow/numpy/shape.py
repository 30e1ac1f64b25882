"""tensorflow: shape ops."""

from __future__ import annotations

import itertools

import tensorflow as tf

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
reshape = tf.reshape
broadcast_to = tf.broadcast_to


def expand_dims(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    for a in axes:
        x = tf.expand_dims(x, a)
    return x


def squeeze(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    # tf.squeeze with no axes squeezes every size-1 dim, so skip the call instead.
    return tf.squeeze(x, axes) if axes else x


transpose = tf.transpose


def flip(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return tf.reverse(x, axes) if axes else x


roll = tf.roll
tile = tf.tile
repeat = tf.repeat
concatenate = tf.concat
stack = tf.stack


def split(x: Tensor, indices: tuple[int, ...], axis: int) -> list[Tensor]:
    # tf.split takes section sizes; the last one (-1) takes the rest.
    bounds = (0,) + indices
    sizes = [b - a for a, b in itertools.pairwise(bounds)] + [-1]
    return list(tf.split(x, sizes, axis))


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    return x[key]


def _wrap(indices: Tensor, x: Tensor, axis: int) -> Tensor:
    # tf.gather rejects negative indices; count them from the end as NumPy does.
    n = tf.cast(tf.shape(x)[axis], indices.dtype)
    return tf.where(indices < 0, indices + n, indices)


def take(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    return tf.gather(x, _wrap(indices, x, axis), axis=axis)


def _to_last(rank: int, axis: int) -> list[int]:
    return [i for i in range(rank) if i != axis] + [axis]


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    # Gather along the last axis with every other axis as a batch dim.
    rank = len(x.shape)
    perm = _to_last(rank, axis)
    inverse = [perm.index(i) for i in range(rank)]
    xt = tf.transpose(x, perm)
    it = tf.transpose(_wrap(indices, x, axis), perm)
    return tf.transpose(tf.gather(xt, it, batch_dims=rank - 1), inverse)


where = tf.where


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    coords = tf.where(tf.cast(x, tf.bool))
    return tuple(tf.unstack(coords, num=len(x.shape), axis=1))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    # tf.unravel_index takes 0-D or 1-D indices; go through 1-D and restore the shape.
    flat = tf.reshape(indices, (-1,))
    coords = tf.unravel_index(flat, tf.constant(shape, dtype=indices.dtype))
    out_shape = tf.shape(indices)
    return tuple(tf.reshape(c, out_shape) for c in tf.unstack(coords, num=len(shape), axis=0))


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    return tf.pad(x, pad_width, constant_values=value)


def diag(x: Tensor, k: int) -> Tensor:
    if len(x.shape) == 1:
        return tf.linalg.diag(x, k=k)
    return tf.linalg.diag_part(x, k=k)


def diagonal(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    rank = len(x.shape)
    perm = [i for i in range(rank) if i not in (axis1, axis2)] + [axis1, axis2]
    return tf.linalg.diag_part(tf.transpose(x, perm), k=offset)


def _bitcast(x: Tensor, dtype: DType) -> Tensor:
    # tf.bitcast adds (or needs) a trailing axis when item sizes differ.
    old, new = x.dtype.size, to_numpy_dtype(dtype).itemsize
    if old > new:
        out = tf.bitcast(x, dtype)
        return tf.reshape(out, tf.concat([tf.shape(x)[:-1], [-1]], 0))
    if old < new:
        x = tf.reshape(x, tf.concat([tf.shape(x)[:-1], [-1, new // old]], 0))
    return tf.bitcast(x, dtype)


def view(x: Tensor, dtype: DType) -> Tensor:
    if x.dtype == tf.bool:
        # tf.bitcast has no bool; a bool's byte is its 0/1 value.
        x = tf.cast(x, tf.uint8)
    if dtype == "bool":
        return tf.not_equal(_bitcast(x, "uint8"), 0)
    return _bitcast(x, dtype)


def size(x: Tensor) -> Tensor:
    # Overrides the core composite (a stack and a product of the dims): tf.size is one graph
    # node, and dynamic shapes, the only case that reaches here, are tf.function's.
    return tf.size(x, out_type=tf.int32)
