"""tensorflow: activations, losses, normalization and encoding ops."""

from __future__ import annotations

import tensorflow as tf

from lamina.backend.kit import DType, Tensor


# Native kernel: tf.nn.relu is one Relu op with a fused gradient (the composite is a maximum).
def relu(x: Tensor) -> Tensor:
    return tf.nn.relu(x)


def sigmoid(x: Tensor) -> Tensor:
    return tf.math.sigmoid(x)


# Native kernel: the Softplus op (the composite is logaddexp(x, 0)).
def softplus(x: Tensor) -> Tensor:
    return tf.math.softplus(x)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return tf.nn.softmax(x, axis=axis[0])
    # tf.nn.softmax takes one axis; several axes go through the explicit formula.
    e = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
    return e / tf.reduce_sum(e, axis=axis, keepdims=True)


# Native kernel: the LogSoftmax op for one axis (the composite takes a max, exp, sum, log).
def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return tf.nn.log_softmax(x, axis=axis[0])
    return x - tf.reduce_logsumexp(x, axis=axis, keepdims=True)


def _to_last(x: Tensor, axis: int) -> tuple[Tensor, list[int] | None]:
    """`x` with `axis` moved last, and the permutation that undoes it (None: unmoved)."""
    ndim = x.shape.rank
    if axis == ndim - 1:
        return x, None
    perm = [i for i in range(ndim) if i != axis] + [axis]
    inverse = [perm.index(i) for i in range(ndim)]
    return tf.transpose(x, perm), inverse


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    if x.dtype not in (tf.uint8, tf.int8, tf.int32, tf.int64):
        # tf.one_hot takes only these index dtypes.
        x = tf.cast(x, tf.int64)
    if dtype == "bool":
        # tf.one_hot cannot make bool values; compare the int encoding instead.
        return tf.one_hot(x, num_classes, axis=axis, dtype=tf.int32) > 0
    return tf.one_hot(x, num_classes, axis=axis, dtype=tf.as_dtype(dtype))
