"""torch: activations, losses, normalization and encoding ops."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import to_torch_dtype

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


def relu(x: Tensor) -> Tensor:
    return F.relu(x)


def relu6(x: Tensor) -> Tensor:
    return F.relu6(x)


def sigmoid(x: Tensor) -> Tensor:
    return torch.sigmoid(x)


def sparse_sigmoid(x: Tensor) -> Tensor:
    return torch.clamp((x + 1) * 0.5, 0, 1)


def softplus(x: Tensor) -> Tensor:
    # F.softplus switches to the identity above `threshold=20`; logaddexp is exact everywhere.
    return torch.logaddexp(x, torch.zeros((), dtype=x.dtype, device=x.device))


def softsign(x: Tensor) -> Tensor:
    return F.softsign(x)


def sparse_plus(x: Tensor) -> Tensor:
    quad = (x + 1) ** 2 * 0.25
    return torch.where(x <= -1, torch.zeros_like(x), torch.where(x >= 1, x, quad))


def silu(x: Tensor) -> Tensor:
    return F.silu(x)


def log_sigmoid(x: Tensor) -> Tensor:
    return F.logsigmoid(x)


def hard_sigmoid(x: Tensor) -> Tensor:
    return F.hardsigmoid(x)


def hard_silu(x: Tensor) -> Tensor:
    return F.hardswish(x)


def selu(x: Tensor) -> Tensor:
    return F.selu(x)


def tanh_shrink(x: Tensor) -> Tensor:
    return F.tanhshrink(x)


def hard_tanh(x: Tensor) -> Tensor:
    return F.hardtanh(x)


def soft_shrink(x: Tensor, threshold: float) -> Tensor:
    return F.softshrink(x, threshold)


def hard_shrink(x: Tensor, threshold: float) -> Tensor:
    return F.hardshrink(x, threshold)


def squareplus(x: Tensor, b: float) -> Tensor:
    return (x + torch.sqrt(x * x + b)) / 2


def leaky_relu(x: Tensor, negative_slope: float) -> Tensor:
    return F.leaky_relu(x, negative_slope)


def elu(x: Tensor, alpha: float) -> Tensor:
    return F.elu(x, alpha)


def celu(x: Tensor, alpha: float) -> Tensor:
    return F.celu(x, alpha)


def gelu(x: Tensor, approximate: bool) -> Tensor:
    return F.gelu(x, approximate="tanh" if approximate else "none")


def threshold(x: Tensor, threshold: float, default_value: float) -> Tensor:
    return F.threshold(x, threshold, default_value)


def glu(x: Tensor, axis: int) -> Tensor:
    return F.glu(x, dim=axis)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return torch.softmax(x, dim=axis[0])
    # torch.softmax takes one dim; several axes go through the explicit formula.
    e = torch.exp(x - torch.amax(x, dim=axis, keepdim=True))
    return e / torch.sum(e, dim=axis, keepdim=True)


def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return torch.log_softmax(x, dim=axis[0])
    return x - torch.logsumexp(x, dim=axis, keepdim=True)


def sparsemax(x: Tensor, axis: int) -> Tensor:
    z = torch.movedim(x, axis, -1)
    z_sorted = torch.sort(z, dim=-1, descending=True).values
    k = torch.arange(1, z.shape[-1] + 1, dtype=x.dtype, device=x.device)
    cumsum = torch.cumsum(z_sorted, dim=-1)
    support = (1 + k * z_sorted) > cumsum
    k_z = torch.sum(support, dim=-1, keepdim=True)
    tau = (torch.gather(cumsum, -1, k_z - 1) - 1) / k_z.to(x.dtype)
    return torch.movedim(torch.clamp(z - tau, min=0), -1, axis)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    # F.one_hot rejects negative and out-of-range indices; comparing gives zeros for them.
    hot = x.unsqueeze(-1) == torch.arange(num_classes, device=x.device)
    return torch.movedim(hot, -1, axis).to(to_torch_dtype(dtype))


def multi_hot(x: Tensor, num_classes: int, axis: int, reduce_axis: int, dtype: DType) -> Tensor:
    return torch.amax(one_hot(x, num_classes, axis, dtype), dim=reduce_axis)


def polar(abs_: Tensor, angle: Tensor) -> Tensor:
    abs_, angle = torch.broadcast_tensors(abs_, angle)
    return torch.polar(abs_, angle)


def binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, epsilon: float
) -> Tensor:
    if from_logits:
        return -(target * F.logsigmoid(output) + (1 - target) * F.logsigmoid(-output))
    p = torch.clamp(output, epsilon, 1 - epsilon)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    if from_logits:
        return torch.log_softmax(output, dim=axis)
    p = output / torch.sum(output, dim=axis, keepdim=True)
    return torch.log(torch.clamp(p, epsilon, 1 - epsilon))


def categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    return -torch.sum(target * _log_probs(output, from_logits, axis, epsilon), dim=axis)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    if target.ndim == output.ndim:
        target = target[..., 0]
    # torch's fused cross_entropy / nll_loss (one autograd node, as torch.nn uses), not a
    # one-hot product. Labels outside [0, classes) give 0, as a one-hot product would.
    scores = output if from_logits else _log_probs(output, False, axis, epsilon)
    if scores.ndim > 1 and axis % scores.ndim != 1:
        scores = torch.movedim(scores, axis, 1)
    loss = F.cross_entropy if from_logits else F.nll_loss
    labels = target.long()
    if scores.device.type == "cpu":
        # On the CPU torch checks the labels itself: try the plain call, and mask only
        # when a label is out of range (on a GPU that check would be a fatal assert).
        with contextlib.suppress(IndexError):
            return loss(scores, labels, reduction="none")
    classes = output.shape[axis]
    valid = (labels >= 0) & (labels < classes)
    values = loss(scores, labels.clamp(0, classes - 1), reduction="none")
    return values * valid.to(values.dtype)


def psnr(x1: Tensor, x2: Tensor, max_val: Tensor) -> Tensor:
    mse = torch.mean(torch.square(x1 - x2))
    return 20 * torch.log10(max_val) - 10 * torch.log10(mse)


def moments(x: Tensor, axes: tuple[int, ...] | None, keepdims: bool) -> tuple[Tensor, Tensor]:
    mean = torch.mean(x, dim=axes, keepdim=True)
    variance = torch.mean(torch.square(x - mean), dim=axes, keepdim=keepdims)
    return (mean if keepdims else mean.reshape(variance.shape)), variance


def batch_normalization(
    x: Tensor,
    mean: Tensor,
    variance: Tensor,
    offset: Tensor | None,
    scale: Tensor | None,
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    inv = torch.rsqrt(variance.reshape(param_shape) + epsilon)
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
    out = (x - mean) * torch.rsqrt(variance + epsilon)
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
    out = x * torch.rsqrt(torch.mean(torch.square(x), dim=axes, keepdim=True) + epsilon)
    return out if scale is None else out * scale.reshape(param_shape)


def normalize(x: Tensor, axes: tuple[int, ...], order: int, epsilon: float) -> Tensor:
    norm = torch.linalg.vector_norm(x, ord=order, dim=axes, keepdim=True)
    return x / torch.clamp(norm, min=epsilon)
