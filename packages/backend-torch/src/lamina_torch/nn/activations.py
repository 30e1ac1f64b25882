"""torch: activations, losses, normalization and encoding ops."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import to_torch_dtype


# Native kernel: F.relu, one fused op (the core composite is a maximum against 0).
def relu(x: Tensor) -> Tensor:
    return F.relu(x)


def sigmoid(x: Tensor) -> Tensor:
    return torch.sigmoid(x)


# Native kernel: F.silu is one fused op with its own backward (the composite is x * sigmoid(x)).
def silu(x: Tensor) -> Tensor:
    return F.silu(x)


# Native kernel: F.gelu computes either form in one fused op (the composite takes five).
def gelu(x: Tensor, approximate: bool) -> Tensor:
    return F.gelu(x, approximate="tanh" if approximate else "none")


# Native kernel: F.layer_norm is one op with one backward node, where the composite takes
# moments, rsqrt, scale and shift (about 10% of a Transformer's training step on CPU).
def layer_normalization(
    x: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    last = tuple(range(x.ndim - len(axes), x.ndim))  # F.layer_norm takes trailing axes
    moved = x if axes == last else torch.movedim(x, axes, last)
    shape = moved.shape[x.ndim - len(axes) :]
    weight = None if gamma is None else gamma.reshape(shape)
    bias = None if beta is None else beta.reshape(shape)
    out = F.layer_norm(moved, shape, weight, bias, epsilon)
    return out if axes == last else torch.movedim(out, last, axes)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return torch.softmax(x, dim=axis[0])
    # torch.softmax takes one dim; several axes go through the explicit formula.
    e = torch.exp(x - torch.amax(x, dim=axis, keepdim=True))
    return e / torch.sum(e, dim=axis, keepdim=True)


# Native kernel: torch.log_softmax is one fused, numerically stable op for one axis.
def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    if len(axis) == 1:
        return torch.log_softmax(x, dim=axis[0])
    return x - torch.logsumexp(x, dim=axis, keepdim=True)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    # F.one_hot rejects negative and out-of-range indices; comparing gives zeros for them.
    hot = x.unsqueeze(-1) == torch.arange(num_classes, device=x.device)
    return torch.movedim(hot, -1, axis).to(to_torch_dtype(dtype))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    if from_logits:
        return torch.log_softmax(output, dim=axis)
    p = output / torch.sum(output, dim=axis, keepdim=True)
    return torch.log(torch.clamp(p, epsilon, 1 - epsilon))


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
