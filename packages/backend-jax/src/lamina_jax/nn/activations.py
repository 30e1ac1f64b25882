"""jax: activations, losses, normalization and encoding ops."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

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
    """`value` as a scalar of `x`'s dtype (keeps strict dtype promotion happy)."""
    return jnp.asarray(value, dtype=x.dtype)


def relu(x: Tensor) -> Tensor:
    return jax.nn.relu(x)


def relu6(x: Tensor) -> Tensor:
    return jax.nn.relu6(x)


def sigmoid(x: Tensor) -> Tensor:
    return jax.nn.sigmoid(x)


def sparse_sigmoid(x: Tensor) -> Tensor:
    return jax.nn.sparse_sigmoid(x)


def softplus(x: Tensor) -> Tensor:
    return jax.nn.softplus(x)


def softsign(x: Tensor) -> Tensor:
    return jax.nn.soft_sign(x)


def sparse_plus(x: Tensor) -> Tensor:
    return jax.nn.sparse_plus(x)


def silu(x: Tensor) -> Tensor:
    return jax.nn.silu(x)


def log_sigmoid(x: Tensor) -> Tensor:
    return jax.nn.log_sigmoid(x)


def hard_sigmoid(x: Tensor) -> Tensor:
    return jax.nn.hard_sigmoid(x)


def hard_silu(x: Tensor) -> Tensor:
    return jax.nn.hard_silu(x)


def selu(x: Tensor) -> Tensor:
    return jax.nn.selu(x)


def tanh_shrink(x: Tensor) -> Tensor:
    return x - jnp.tanh(x)


def hard_tanh(x: Tensor) -> Tensor:
    return jax.nn.hard_tanh(x)


def soft_shrink(x: Tensor, threshold: float) -> Tensor:
    t = _c(x, threshold)
    return jnp.where(x > t, x - t, jnp.where(x < -t, x + t, _c(x, 0)))


def hard_shrink(x: Tensor, threshold: float) -> Tensor:
    return jnp.where(jnp.abs(x) > _c(x, threshold), x, _c(x, 0))


def squareplus(x: Tensor, b: float) -> Tensor:
    return jax.nn.squareplus(x, _c(x, b))


def leaky_relu(x: Tensor, negative_slope: float) -> Tensor:
    return jax.nn.leaky_relu(x, _c(x, negative_slope))


def elu(x: Tensor, alpha: float) -> Tensor:
    return jax.nn.elu(x, _c(x, alpha))


def celu(x: Tensor, alpha: float) -> Tensor:
    return jax.nn.celu(x, _c(x, alpha))


def gelu(x: Tensor, approximate: bool) -> Tensor:
    return jax.nn.gelu(x, approximate=approximate)


def threshold(x: Tensor, threshold: float, default_value: float) -> Tensor:
    return jnp.where(x > _c(x, threshold), x, _c(x, default_value))


def glu(x: Tensor, axis: int) -> Tensor:
    return jax.nn.glu(x, axis=axis)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    return jax.nn.softmax(x, axis=axis)


def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    return jax.nn.log_softmax(x, axis=axis)


def sparsemax(x: Tensor, axis: int) -> Tensor:
    z = jnp.moveaxis(x, axis, -1)
    z_sorted = -jnp.sort(-z, axis=-1)
    k = jnp.arange(1, z.shape[-1] + 1, dtype=x.dtype)
    cumsum = jnp.cumsum(z_sorted, axis=-1)
    support = (_c(x, 1) + k * z_sorted) > cumsum
    k_z = jnp.sum(support, axis=-1, keepdims=True, dtype="int32")
    tau = (jnp.take_along_axis(cumsum, k_z - 1, axis=-1) - _c(x, 1)) / k_z.astype(x.dtype)
    return jnp.moveaxis(jnp.maximum(z - tau, _c(x, 0)), -1, axis)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    return jax.nn.one_hot(x, num_classes, dtype=to_numpy_dtype(dtype), axis=axis)


def multi_hot(x: Tensor, num_classes: int, axis: int, reduce_axis: int, dtype: DType) -> Tensor:
    return jnp.max(one_hot(x, num_classes, axis, dtype), axis=reduce_axis)


def polar(abs_: Tensor, angle: Tensor) -> Tensor:
    return jax.lax.complex(abs_ * jnp.cos(angle), abs_ * jnp.sin(angle))


def binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, epsilon: float
) -> Tensor:
    one = _c(output, 1)
    if from_logits:
        return -(target * jax.nn.log_sigmoid(output) + (one - target) * jax.nn.log_sigmoid(-output))
    p = jnp.clip(output, _c(output, epsilon), _c(output, 1 - epsilon))
    return -(target * jnp.log(p) + (one - target) * jnp.log(one - p))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    if from_logits:
        return jax.nn.log_softmax(output, axis=axis)
    p = output / jnp.sum(output, axis=axis, keepdims=True)
    return jnp.log(jnp.clip(p, _c(p, epsilon), _c(p, 1 - epsilon)))


def categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    return -jnp.sum(target * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    if target.ndim == output.ndim:
        target = target[..., 0]
    mask = jax.nn.one_hot(target, output.shape[axis], dtype=output.dtype, axis=axis)
    return -jnp.sum(mask * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def psnr(x1: Tensor, x2: Tensor, max_val: Tensor) -> Tensor:
    mse = jnp.mean(jnp.square(x1 - x2))
    return _c(x1, 20) * jnp.log10(max_val) - _c(x1, 10) * jnp.log10(mse)


def moments(x: Tensor, axes: tuple[int, ...] | None, keepdims: bool) -> tuple[Tensor, Tensor]:
    mean = jnp.mean(x, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=keepdims)
    return (mean if keepdims else jnp.squeeze(mean, axis=axes)), variance


def batch_normalization(
    x: Tensor,
    mean: Tensor,
    variance: Tensor,
    offset: Tensor | None,
    scale: Tensor | None,
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    inv = jax.lax.rsqrt(variance.reshape(param_shape) + _c(x, epsilon))
    if scale is not None:
        inv = inv * scale.reshape(param_shape)
    out = (x - mean.reshape(param_shape)) * inv
    return out if offset is None else out + offset.reshape(param_shape)


def layer_normalization(
    x: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    mean, variance = moments(x, axes, True)
    out = (x - mean) * jax.lax.rsqrt(variance + _c(x, epsilon))
    if gamma is not None:
        out = out * gamma.reshape(param_shape)
    return out if beta is None else out + beta.reshape(param_shape)


def rms_normalization(
    x: Tensor,
    scale: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    ms = jnp.mean(jnp.square(x), axis=axes, keepdims=True)
    out = x * jax.lax.rsqrt(ms + _c(x, epsilon))
    return out if scale is None else out * scale.reshape(param_shape)


def normalize(x: Tensor, axes: tuple[int, ...], order: int, epsilon: float) -> Tensor:
    norm = jnp.sum(jnp.abs(x) ** order, axis=axes, keepdims=True) ** _c(x, 1 / order)
    return x / jnp.maximum(norm, _c(x, epsilon))
