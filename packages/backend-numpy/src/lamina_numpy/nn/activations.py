"""numpy: activations, losses, normalization and encoding ops."""

from __future__ import annotations

from typing import Any

import numpy as np

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

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _c(x: Tensor, value: float) -> Any:
    """`value` as a scalar of `x`'s dtype, so NumPy does not widen half precision."""
    return np.asarray(value, dtype=x.dtype)


def _clip(x: Tensor, low: float, high: float) -> Tensor:
    # clip returns float32 for ml_dtypes' bfloat16; minimum/maximum keep the dtype.
    return np.minimum(np.maximum(x, _c(x, low)), _c(x, high))


def relu(x: Tensor) -> Tensor:
    return np.maximum(x, _c(x, 0))


def relu6(x: Tensor) -> Tensor:
    return _clip(x, 0, 6)


def sigmoid(x: Tensor) -> Tensor:
    from scipy import special

    return special.expit(x).astype(x.dtype)


def sparse_sigmoid(x: Tensor) -> Tensor:
    return _clip((x + _c(x, 1)) * _c(x, 0.5), 0, 1)


def softplus(x: Tensor) -> Tensor:
    return np.logaddexp(_c(x, 0), x)


def softsign(x: Tensor) -> Tensor:
    return x / (_c(x, 1) + np.abs(x))


def sparse_plus(x: Tensor) -> Tensor:
    quad = (x + _c(x, 1)) ** 2 * _c(x, 0.25)
    return np.where(x <= -1, _c(x, 0), np.where(x >= 1, x, quad))


def silu(x: Tensor) -> Tensor:
    return x * sigmoid(x)


def log_sigmoid(x: Tensor) -> Tensor:
    from scipy import special

    return special.log_expit(x).astype(x.dtype)


def hard_sigmoid(x: Tensor) -> Tensor:
    return relu6(x + _c(x, 3)) / _c(x, 6)


def hard_silu(x: Tensor) -> Tensor:
    return x * hard_sigmoid(x)


def selu(x: Tensor) -> Tensor:
    return _c(x, _SELU_SCALE) * elu(x, _SELU_ALPHA)


def tanh_shrink(x: Tensor) -> Tensor:
    return x - np.tanh(x)


def hard_tanh(x: Tensor) -> Tensor:
    return _clip(x, -1, 1)


def soft_shrink(x: Tensor, threshold: float) -> Tensor:
    t = _c(x, threshold)
    return np.where(x > t, x - t, np.where(x < -t, x + t, _c(x, 0)))


def hard_shrink(x: Tensor, threshold: float) -> Tensor:
    return np.where(np.abs(x) > _c(x, threshold), x, _c(x, 0))


def squareplus(x: Tensor, b: float) -> Tensor:
    return (x + np.sqrt(x * x + _c(x, b))) / _c(x, 2)


def leaky_relu(x: Tensor, negative_slope: float) -> Tensor:
    return np.where(x >= 0, x, x * _c(x, negative_slope))


def elu(x: Tensor, alpha: float) -> Tensor:
    return np.where(x > 0, x, _c(x, alpha) * np.expm1(np.minimum(x, _c(x, 0))))


def celu(x: Tensor, alpha: float) -> Tensor:
    a = _c(x, alpha)
    return np.maximum(x, _c(x, 0)) + np.minimum(_c(x, 0), a * np.expm1(np.minimum(x, 0) / a))


def gelu(x: Tensor, approximate: bool) -> Tensor:
    from scipy import special

    if approximate:
        inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)
        return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype)
    return (0.5 * x * (1 + special.erf(x / np.sqrt(2)))).astype(x.dtype)


def threshold(x: Tensor, threshold: float, default_value: float) -> Tensor:
    return np.where(x > _c(x, threshold), x, _c(x, default_value))


def glu(x: Tensor, axis: int) -> Tensor:
    a, b = np.split(x, 2, axis=axis)
    return a * sigmoid(b)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    from scipy import special

    return special.softmax(x, axis=axis).astype(x.dtype)


def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    from scipy import special

    return special.log_softmax(x, axis=axis).astype(x.dtype)


def sparsemax(x: Tensor, axis: int) -> Tensor:
    z = np.moveaxis(x, axis, -1)
    z_sorted = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1, dtype=x.dtype)
    cumsum = np.cumsum(z_sorted, axis=-1)
    support = (_c(x, 1) + k * z_sorted) > cumsum
    k_z = np.sum(support, axis=-1, keepdims=True)
    tau = (np.take_along_axis(cumsum, k_z - 1, axis=-1) - _c(x, 1)) / k_z.astype(x.dtype)
    return np.moveaxis(np.maximum(z - tau, _c(x, 0)), -1, axis)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    hot = np.expand_dims(x, -1) == np.arange(num_classes)
    return np.moveaxis(hot, -1, axis).astype(to_numpy_dtype(dtype))


def multi_hot(x: Tensor, num_classes: int, axis: int, reduce_axis: int, dtype: DType) -> Tensor:
    return np.max(one_hot(x, num_classes, axis, dtype), axis=reduce_axis)


def polar(abs_: Tensor, angle: Tensor) -> Tensor:
    return abs_ * np.cos(angle) + 1j * (abs_ * np.sin(angle))


def binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, epsilon: float
) -> Tensor:
    if from_logits:
        return -(target * log_sigmoid(output) + (_c(output, 1) - target) * log_sigmoid(-output))
    p = _clip(output, epsilon, 1 - epsilon)
    return -(target * np.log(p) + (_c(p, 1) - target) * np.log(_c(p, 1) - p))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    if from_logits:
        return log_softmax(output, (axis,))
    # NumPy warns on 0 / 0 where the other frameworks return nan quietly.
    with np.errstate(divide="ignore", invalid="ignore"):
        p = output / np.sum(output, axis=axis, keepdims=True)
    return np.log(_clip(p, epsilon, 1 - epsilon))


def categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    return -np.sum(target * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    if target.ndim == output.ndim:
        target = target[..., 0]
    mask = one_hot(target, output.shape[axis], axis, output.dtype.name)
    return -np.sum(mask * _log_probs(output, from_logits, axis, epsilon), axis=axis)


def psnr(x1: Tensor, x2: Tensor, max_val: Tensor) -> Tensor:
    mse = np.mean(np.square(x1 - x2))
    with np.errstate(divide="ignore"):  # identical inputs: log10(0) = -inf, PSNR = inf
        return np.asarray(_c(x1, 20) * np.log10(max_val) - _c(x1, 10) * np.log10(mse))


def moments(x: Tensor, axes: tuple[int, ...] | None, keepdims: bool) -> tuple[Tensor, Tensor]:
    mean = np.mean(x, axis=axes, keepdims=True)
    variance = np.mean(np.square(x - mean), axis=axes, keepdims=keepdims)
    return (mean if keepdims else np.squeeze(mean, axis=axes)), variance


def batch_normalization(
    x: Tensor,
    mean: Tensor,
    variance: Tensor,
    offset: Tensor | None,
    scale: Tensor | None,
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    inv = 1 / np.sqrt(variance.reshape(param_shape) + _c(x, epsilon))
    if scale is not None:
        inv = inv * scale.reshape(param_shape)
    out = (x - mean.reshape(param_shape)) * inv
    return out if offset is None else out + offset.reshape(param_shape)


def layer_normalization(
    x: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...] | None,
    epsilon: float,
) -> Tensor:
    mean, variance = moments(x, axes, True)
    out = (x - mean) / np.sqrt(variance + _c(x, epsilon))
    if gamma is not None:
        out = out * gamma.reshape(param_shape)
    return out if beta is None else out + beta.reshape(param_shape)


def rms_normalization(
    x: Tensor,
    scale: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...] | None,
    epsilon: float,
) -> Tensor:
    out = x / np.sqrt(np.mean(np.square(x), axis=axes, keepdims=True) + _c(x, epsilon))
    return out if scale is None else out * scale.reshape(param_shape)


def normalize(x: Tensor, axes: tuple[int, ...], order: int, epsilon: float) -> Tensor:
    norm = np.sum(np.abs(x) ** order, axis=axes, keepdims=True) ** _c(x, 1 / order)
    return x / np.maximum(norm, _c(x, epsilon))
