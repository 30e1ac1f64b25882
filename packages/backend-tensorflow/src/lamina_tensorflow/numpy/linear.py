"""tensorflow: products and contractions."""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf

from lamina.backend.kit import Tensor, correlation_window

# TF's MatMul/BatchMatMul kernels lack small ints, bool and uint32: compute wider, cast back.
_WIDER = {
    tf.bool: tf.int32,
    tf.int8: tf.int32,
    tf.int16: tf.int32,
    tf.uint8: tf.int32,
    tf.uint16: tf.int32,
    tf.uint32: tf.int64,
    tf.uint64: tf.int64,
}


def _widened(fn: Callable[..., Tensor], *xs: Tensor) -> Tensor:
    dtype = xs[0].dtype
    wide = _WIDER.get(dtype)
    if wide is None:
        return fn(*xs)
    out = fn(*(tf.cast(x, wide) for x in xs))
    return tf.cast(out > 0, dtype) if dtype == tf.bool else tf.cast(out, dtype)


def _move_to_end(x: Tensor, axis: int) -> Tensor:
    perm = [i for i in range(x.shape.rank) if i != axis] + [axis]
    return tf.transpose(x, perm)


def _move_from_end(x: Tensor, axis: int) -> Tensor:
    rank = x.shape.rank
    perm = list(range(rank - 1))
    perm.insert(axis, rank - 1)
    return tf.transpose(x, perm)


def matmul(x1: Tensor, x2: Tensor) -> Tensor:
    # tf.linalg.matmul neither broadcasts 1-D operands nor mismatched batch ranks.
    if x1.shape.rank == 1 or x2.shape.rank == 1:
        return tensordot(x1, x2, ((x1.shape.rank - 1,), (max(x2.shape.rank - 2, 0),)))
    return _widened(tf.linalg.matmul, x1, x2)


def cross(x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor:
    # tf.linalg.cross takes only 3-vectors, so the products are spelled out.
    a = tf.unstack(_move_to_end(x1, axisa), axis=-1)
    b = tf.unstack(_move_to_end(x2, axisb), axis=-1)
    if len(a) == 2 and len(b) == 2:
        return a[0] * b[1] - a[1] * b[0]
    zero_a, zero_b = tf.zeros_like(a[0]), tf.zeros_like(b[0])
    a = a + [zero_a] * (3 - len(a))
    b = b + [zero_b] * (3 - len(b))
    out = tf.stack(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
        axis=-1,
    )
    return _move_from_end(out, axisc)


def correlate(x1: Tensor, x2: Tensor, mode: str) -> Tensor:
    n, m = int(x1.shape[0]), int(x2.shape[0])
    padded = tf.pad(x1, [[m - 1, m - 1]])
    full = tf.nn.conv1d(padded[None, :, None], x2[:, None, None], stride=1, padding="VALID")
    full = full[0, :, 0]
    return full[correlation_window(n, m, mode)]


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return _widened(lambda a, b: tf.tensordot(a, b, axes=[list(axes[0]), list(axes[1])]), x1, x2)


def dot(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        return x1 * x2
    return tensordot(x1, x2, ((x1.shape.rank - 1,), (max(x2.shape.rank - 2, 0),)))


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    return _widened(lambda *xs: tf.einsum(subscripts, *xs), *operands)
