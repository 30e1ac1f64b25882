"""tensorflow: activations, losses, normalization and encoding ops."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.kit import DType, Tensor

__all__ = [
    "batch_normalization",
    "binary_crossentropy",
    "categorical_crossentropy",
    "celu",
    "elu",
    "gelu",
    "glu",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_tanh",
    "layer_normalization",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "moments",
    "multi_hot",
    "normalize",
    "one_hot",
    "polar",
    "psnr",
    "relu",
    "relu6",
    "rms_normalization",
    "selu",
    "sigmoid",
    "silu",
    "soft_shrink",
    "softmax",
    "softplus",
    "softsign",
    "sparse_categorical_crossentropy",
    "sparse_plus",
    "sparse_sigmoid",
    "sparsemax",
    "squareplus",
    "tanh_shrink",
    "threshold",
]


def _c(x: Tensor, value: float) -> Any:
    """`value` as a scalar of `x`'s dtype (tf.where does not convert Python scalars to it)."""
    return tf.constant(value, dtype=x.dtype)


def relu(x: Tensor) -> Tensor:
    return tf.nn.relu(x)


def relu6(x: Tensor) -> Tensor:
    return tf.nn.relu6(x)


def sigmoid(x: Tensor) -> Tensor:
    return tf.math.sigmoid(x)


def sparse_sigmoid(x: Tensor) -> Tensor:
    return tf.clip_by_value((x + 1) * 0.5, _c(x, 0), _c(x, 1))


def softplus(x: Tensor) -> Tensor:
    return tf.math.softplus(x)


def softsign(x: Tensor) -> Tensor:
    return tf.math.softsign(x)


def sparse_plus(x: Tensor) -> Tensor:
    quad = tf.square(x + 1) * 0.25
    return tf.where(x <= -1, _c(x, 0), tf.where(x >= 1, x, quad))


def silu(x: Tensor) -> Tensor:
    return tf.nn.silu(x)


def log_sigmoid(x: Tensor) -> Tensor:
    return tf.math.log_sigmoid(x)


def hard_sigmoid(x: Tensor) -> Tensor:
    return tf.nn.relu6(x + 3) / 6


def hard_silu(x: Tensor) -> Tensor:
    return x * hard_sigmoid(x)


def selu(x: Tensor) -> Tensor:
    return tf.nn.selu(x)


def tanh_shrink(x: Tensor) -> Tensor:
    return x - tf.math.tanh(x)


def hard_tanh(x: Tensor) -> Tensor:
    return tf.clip_by_value(x, _c(x, -1), _c(x, 1))


def soft_shrink(x: Tensor, threshold: float) -> Tensor:
    t = _c(x, threshold)
    return tf.where(x > t, x - t, tf.where(x < -t, x + t, _c(x, 0)))


def hard_shrink(x: Tensor, threshold: float) -> Tensor:
    return tf.where(tf.abs(x) > _c(x, threshold), x, _c(x, 0))


def squareplus(x: Tensor, b: float) -> Tensor:
    return (x + tf.sqrt(tf.square(x) + b)) / 2


def leaky_relu(x: Tensor, negative_slope: float) -> Tensor:
    return tf.nn.leaky_relu(x, alpha=negative_slope)


def elu(x: Tensor, alpha: float) -> Tensor:
    # tf.nn.elu has no `alpha`.
    return tf.where(x > 0, x, alpha * tf.math.expm1(tf.minimum(x, _c(x, 0))))


def celu(x: Tensor, alpha: float) -> Tensor:
    neg = alpha * tf.math.expm1(tf.minimum(x, _c(x, 0)) / alpha)
    return tf.maximum(x, _c(x, 0)) + tf.minimum(_c(x, 0), neg)


def gelu(x: Tensor, approximate: bool) -> Tensor:
    return tf.nn.gelu(x, approximate=approximate)


def threshold(x: Tensor, threshold: float, default_value: float) -> Tensor:
    return tf.where(x > _c(x, threshold), x, _c(x, default_value))


def glu(x: Tensor, axis: int) -> Tensor:
    a, b = tf.split(x, 2, axis=axis)
    return a * tf.math.sigmoid(b)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return tf.nn.softmax(x, axis=axis[0])
    # tf.nn.softmax takes one axis; several axes go through the explicit formula.
    e = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
    return e / tf.reduce_sum(e, axis=axis, keepdims=True)


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


def sparsemax(x: Tensor, axis: int) -> Tensor:
    z, inverse = _to_last(x, axis)
    z_sorted = tf.sort(z, axis=-1, direction="DESCENDING")
    k = tf.range(1, tf.shape(z)[-1] + 1, dtype=x.dtype)
    cumsum = tf.cumsum(z_sorted, axis=-1)
    support = tf.cast((1 + k * z_sorted) > cumsum, x.dtype)
    k_z = tf.reduce_sum(support, axis=-1, keepdims=True)
    tau = (tf.reduce_sum(z_sorted * support, axis=-1, keepdims=True) - 1) / k_z
    out = tf.maximum(z - tau, _c(x, 0))
    return out if inverse is None else tf.transpose(out, inverse)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    if x.dtype not in (tf.uint8, tf.int8, tf.int32, tf.int64):
        # tf.one_hot takes only these index dtypes.
        x = tf.cast(x, tf.int64)
    if dtype == "bool":
        # tf.one_hot cannot make bool values; compare the int encoding instead.
        return tf.one_hot(x, num_classes, axis=axis, dtype=tf.int32) > 0
    return tf.one_hot(x, num_classes, axis=axis, dtype=tf.as_dtype(dtype))


def multi_hot(x: Tensor, num_classes: int, axis: int, reduce_axis: int, dtype: DType) -> Tensor:
    if dtype == "bool":
        return tf.reduce_any(one_hot(x, num_classes, axis, dtype), axis=reduce_axis)
    return tf.reduce_max(one_hot(x, num_classes, axis, dtype), axis=reduce_axis)


def polar(abs_: Tensor, angle: Tensor) -> Tensor:
    return tf.complex(abs_ * tf.cos(angle), abs_ * tf.sin(angle))


def binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, epsilon: float
) -> Tensor:
    if from_logits:
        return -(target * tf.math.log_sigmoid(output) + (1 - target) * tf.math.log_sigmoid(-output))
    p = tf.clip_by_value(output, _c(output, epsilon), _c(output, 1 - epsilon))
    return -(target * tf.math.log(p) + (1 - target) * tf.math.log(1 - p))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    if from_logits:
        return tf.nn.log_softmax(output, axis=axis)
    p = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    return tf.math.log(tf.clip_by_value(p, _c(p, epsilon), _c(p, 1 - epsilon)))


def categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    return -tf.reduce_sum(target * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    if target.shape.rank == output.shape.rank:
        target = target[..., 0]
    mask = one_hot(target, output.shape[axis], axis, output.dtype.name)
    return -tf.reduce_sum(mask * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def psnr(x1: Tensor, x2: Tensor, max_val: Tensor) -> Tensor:
    mse = tf.reduce_mean(tf.square(x1 - x2))
    # TF has no log10 in tf.math; log(v) / log(10) is the same.
    ln10 = tf.math.log(_c(x1, 10))
    return 20 * tf.math.log(max_val) / ln10 - 10 * tf.math.log(mse) / ln10


def moments(x: Tensor, axes: tuple[int, ...] | None, keepdims: bool) -> tuple[Tensor, Tensor]:
    dims = None if axes is None else list(axes)
    mean = tf.reduce_mean(x, axis=dims, keepdims=True)
    variance = tf.reduce_mean(tf.square(x - mean), axis=dims, keepdims=keepdims)
    return (mean if keepdims else tf.squeeze(mean, axis=dims)), variance


def batch_normalization(
    x: Tensor,
    mean: Tensor,
    variance: Tensor,
    offset: Tensor | None,
    scale: Tensor | None,
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    inv = tf.math.rsqrt(tf.reshape(variance, param_shape) + epsilon)
    if scale is not None:
        inv = inv * tf.reshape(scale, param_shape)
    out = (x - tf.reshape(mean, param_shape)) * inv
    return out if offset is None else out + tf.reshape(offset, param_shape)


def layer_normalization(
    x: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    mean, variance = moments(x, axes, True)
    out = (x - mean) * tf.math.rsqrt(variance + epsilon)
    if gamma is not None:
        out = out * tf.reshape(gamma, param_shape)
    return out if beta is None else out + tf.reshape(beta, param_shape)


def rms_normalization(
    x: Tensor,
    scale: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    ms = tf.reduce_mean(tf.square(x), axis=list(axes), keepdims=True)
    out = x * tf.math.rsqrt(ms + epsilon)
    return out if scale is None else out * tf.reshape(scale, param_shape)


def normalize(x: Tensor, axes: tuple[int, ...], order: int, epsilon: float) -> Tensor:
    total = tf.reduce_sum(tf.abs(x) ** order, axis=list(axes), keepdims=True)
    norm = tf.sqrt(total) if order == 2 else total ** (1 / order)
    return x / tf.maximum(norm, _c(x, epsilon))
