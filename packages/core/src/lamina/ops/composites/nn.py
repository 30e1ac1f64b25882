"""`nn` composites: activations, losses and normalizations built on the primitives.

Arguments arrive as the protocol's `NNOps` members receive them: float tensors already in
their compute dtype, canonical axes, plain Python numbers for the static arguments.
"""

from __future__ import annotations

import math
from typing import Any

from lamina.ops.composites._base import Tensor, backend, const, dtype_of
from lamina.ops.composites.numpy import log10

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _clip(x: Tensor, low: float, high: float) -> Tensor:
    n = backend().numpy
    return n.minimum(n.maximum(x, const(x, low)), const(x, high))


def relu(x: Tensor) -> Tensor:
    return backend().numpy.maximum(x, const(x, 0.0))


def relu6(x: Tensor) -> Tensor:
    return _clip(x, 0.0, 6.0)


def sparse_sigmoid(x: Tensor) -> Tensor:
    return _clip((x + const(x, 1.0)) * const(x, 0.5), 0.0, 1.0)


def softsign(x: Tensor) -> Tensor:
    n = backend().numpy
    return n.divide(x, const(x, 1.0) + n.absolute(x))


def sparse_plus(x: Tensor) -> Tensor:
    n = backend().numpy
    shifted = x + const(x, 1.0)
    quad = shifted * shifted * const(x, 0.25)
    return n.where(x <= const(x, -1.0), const(x, 0.0), n.where(x >= const(x, 1.0), x, quad))


def silu(x: Tensor) -> Tensor:
    return x * backend().nn.sigmoid(x)


def log_sigmoid(x: Tensor) -> Tensor:
    native = getattr(backend().nn, "softplus", softplus)  # a backend's kernel, if any
    return -native(-x)


def hard_sigmoid(x: Tensor) -> Tensor:
    return relu6(x + const(x, 3.0)) / const(x, 6.0)


def hard_silu(x: Tensor) -> Tensor:
    return x * hard_sigmoid(x)


def elu(x: Tensor, alpha: float) -> Tensor:
    n = backend().numpy
    negative = const(x, alpha) * n.expm1(n.minimum(x, const(x, 0.0)))
    return n.where(x > const(x, 0.0), x, negative)


def selu(x: Tensor) -> Tensor:
    return const(x, _SELU_SCALE) * elu(x, _SELU_ALPHA)


def celu(x: Tensor, alpha: float) -> Tensor:
    n, a, zero = backend().numpy, const(x, alpha), const(x, 0.0)
    return n.maximum(x, zero) + n.minimum(zero, a * n.expm1(n.minimum(x, zero) / a))


def tanh_shrink(x: Tensor) -> Tensor:
    return x - backend().numpy.tanh(x)


def hard_tanh(x: Tensor) -> Tensor:
    return _clip(x, -1.0, 1.0)


def soft_shrink(x: Tensor, threshold: float) -> Tensor:
    n, t = backend().numpy, const(x, threshold)
    return n.where(x > t, x - t, n.where(x < -t, x + t, const(x, 0.0)))


def hard_shrink(x: Tensor, threshold: float) -> Tensor:
    n = backend().numpy
    return n.where(n.absolute(x) > const(x, threshold), x, const(x, 0.0))


def squareplus(x: Tensor, b: float) -> Tensor:
    n = backend().numpy
    return (x + n.sqrt(x * x + const(x, b))) / const(x, 2.0)


def leaky_relu(x: Tensor, negative_slope: float) -> Tensor:
    return backend().numpy.where(x >= const(x, 0.0), x, x * const(x, negative_slope))


def gelu(x: Tensor, approximate: bool) -> Tensor:
    b = backend()
    half = const(x, 0.5)
    if approximate:
        inner = const(x, math.sqrt(2 / math.pi)) * (x + const(x, 0.044715) * x * x * x)
        return half * x * (const(x, 1.0) + b.numpy.tanh(inner))
    return half * x * (const(x, 1.0) + b.math.erf(x * const(x, 1 / math.sqrt(2))))


def threshold(x: Tensor, threshold: float, default_value: float) -> Tensor:
    return backend().numpy.where(x > const(x, threshold), x, const(x, default_value))


def glu(x: Tensor, axis: int) -> Tensor:
    b = backend()
    a, gate = b.numpy.split(x, (b.core.shape(x)[axis] // 2,), axis)
    return a * b.nn.sigmoid(gate)


def log_softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    b = backend()
    shifted = x - b.control_flow.stop_gradient(b.numpy.max(x, axis, True))
    return shifted - b.numpy.log(b.numpy.sum(b.numpy.exp(shifted), axis, True))


def sparsemax(x: Tensor, axis: int) -> Tensor:
    b = backend()
    n, dtype = b.numpy, dtype_of(x)
    ndim = len(b.core.shape(x))
    perm = tuple(i for i in range(ndim) if i != axis) + (axis,)
    z = n.transpose(x, perm)
    z_sorted = n.flip(n.sort(z, -1), (ndim - 1,))
    size = b.core.shape(z)[-1]
    k = n.arange(1, size + 1, 1, dtype)
    cumsum = n.cumsum(z_sorted, ndim - 1)
    support = (const(x, 1.0) + k * z_sorted) > cumsum
    k_z = n.sum(b.core.cast(support, "int32"), (ndim - 1,), True)
    picked = n.take_along_axis(cumsum, k_z - const(k_z, 1), ndim - 1)
    tau = (picked - const(x, 1.0)) / b.core.cast(k_z, dtype)
    out = n.maximum(z - tau, const(x, 0.0))
    return n.transpose(out, tuple(perm.index(i) for i in range(ndim)))


def multi_hot(x: Tensor, num_classes: int, axis: int, reduce_axis: int, dtype: str) -> Tensor:
    b = backend()
    return b.numpy.max(b.nn.one_hot(x, num_classes, axis, dtype), (reduce_axis,), False)


def polar(abs_: Tensor, angle: Tensor) -> Tensor:
    b = backend()
    n = b.numpy
    real, imag = abs_ * n.cos(angle), abs_ * n.sin(angle)
    shape = tuple(b.core.shape(real + imag))
    parts = [n.broadcast_to(real, shape), n.broadcast_to(imag, shape)]
    return b.math.view_as_complex(n.stack(parts, len(shape)))


def binary_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, epsilon: float
) -> Tensor:
    n, one = backend().numpy, const(output, 1.0)
    if from_logits:
        return -(target * log_sigmoid(output) + (one - target) * log_sigmoid(-output))
    p = _clip(output, epsilon, 1 - epsilon)
    return -(target * n.log(p) + (one - target) * n.log(one - p))


def _log_probs(output: Tensor, from_logits: bool, axis: int, epsilon: float) -> Tensor:
    b = backend()
    if from_logits:
        native = getattr(b.nn, "log_softmax", None)  # a backend's fused kernel, if any
        return log_softmax(output, (axis,)) if native is None else native(output, (axis,))
    p = b.numpy.divide(output, b.numpy.sum(output, (axis,), True))
    return b.numpy.log(_clip(p, epsilon, 1 - epsilon))


def categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    logp = _log_probs(output, from_logits, axis, epsilon)
    return -backend().numpy.sum(target * logp, (axis,), False)


def sparse_categorical_crossentropy(
    target: Tensor, output: Tensor, from_logits: bool, axis: int, epsilon: float
) -> Tensor:
    b = backend()
    shape = b.core.shape(output)
    if len(b.core.shape(target)) == len(shape):
        target = target[..., 0]
    mask = b.nn.one_hot(target, shape[axis], axis, dtype_of(output))
    return -b.numpy.sum(mask * _log_probs(output, from_logits, axis, epsilon), (axis,), False)


def psnr(x1: Tensor, x2: Tensor, max_val: Tensor) -> Tensor:
    n = backend().numpy
    diff = x1 - x2
    mse = n.mean(diff * diff, None, False)
    return const(x1, 20.0) * log10(max_val) - const(x1, 10.0) * log10(mse)


def moments(x: Tensor, axes: tuple[int, ...] | None, keepdims: bool) -> tuple[Tensor, Tensor]:
    n = backend().numpy
    mean = n.mean(x, axes, True)
    centered = x - mean
    variance = n.mean(centered * centered, axes, keepdims)
    if keepdims:
        return mean, variance
    squeezed = tuple(range(len(backend().core.shape(x)))) if axes is None else axes
    return n.squeeze(mean, squeezed), variance


def _rsqrt(x: Tensor) -> Tensor:
    return const(x, 1.0) / backend().numpy.sqrt(x)


def batch_normalization(
    x: Tensor,
    mean: Tensor,
    variance: Tensor,
    offset: Tensor | None,
    scale: Tensor | None,
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    n = backend().numpy
    inv = _rsqrt(n.reshape(variance, param_shape) + const(x, epsilon))
    if scale is not None:
        inv = inv * n.reshape(scale, param_shape)
    out = (x - n.reshape(mean, param_shape)) * inv
    return out if offset is None else out + n.reshape(offset, param_shape)


def layer_normalization(
    x: Tensor,
    gamma: Tensor | None,
    beta: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    n = backend().numpy
    mean, variance = moments(x, axes, True)
    out = (x - mean) * _rsqrt(variance + const(x, epsilon))
    if gamma is not None:
        out = out * n.reshape(gamma, param_shape)
    return out if beta is None else out + n.reshape(beta, param_shape)


def rms_normalization(
    x: Tensor,
    scale: Tensor | None,
    axes: tuple[int, ...],
    param_shape: tuple[int, ...],
    epsilon: float,
) -> Tensor:
    n = backend().numpy
    out = x * _rsqrt(n.mean(x * x, axes, True) + const(x, epsilon))
    return out if scale is None else out * n.reshape(scale, param_shape)


def normalize(x: Tensor, axes: tuple[int, ...], order: int, epsilon: float) -> Tensor:
    n = backend().numpy
    powered = n.power(n.absolute(x), const(x, float(order)))
    norm = n.power(n.sum(powered, axes, True), const(x, 1 / order))
    return n.divide(x, n.maximum(norm, const(x, epsilon)))


def depth_to_space(x: Tensor, block_size: int, data_format: str) -> Tensor:
    """TF's DCR order: channel ``(i * block + j) * C' + c`` moves to offset ``(i, j)``."""
    b, s = backend(), block_size
    n, first = b.numpy, data_format == "channels_first"
    y = n.transpose(x, (0, 2, 3, 1)) if first else x
    _, h, w, c = b.core.shape(y)
    y = n.transpose(n.reshape(y, (-1, h, w, s, s, c // (s * s))), (0, 1, 3, 2, 4, 5))
    y = n.reshape(y, (-1, h * s, w * s, c // (s * s)))
    return n.transpose(y, (0, 3, 1, 2)) if first else y


def space_to_depth(x: Tensor, block_size: int, data_format: str) -> Tensor:
    """The inverse of `depth_to_space`."""
    b, s = backend(), block_size
    n, first = b.numpy, data_format == "channels_first"
    y = n.transpose(x, (0, 2, 3, 1)) if first else x
    _, h, w, c = b.core.shape(y)
    y = n.transpose(n.reshape(y, (-1, h // s, s, w // s, s, c)), (0, 1, 3, 2, 4, 5))
    y = n.reshape(y, (-1, h // s, w // s, s * s * c))
    return n.transpose(y, (0, 3, 1, 2)) if first else y


def ctc_greedy_decode(
    inputs: Tensor, sequence_lengths: Tensor, merge_repeated: bool, mask_index: int
) -> tuple[Tensor, Tensor]:
    """Decoded int32 ``(1, B, T)`` padded with -1, and ``(B, 1)`` minus summed max logits."""
    b = backend()
    n = b.numpy
    time = b.core.shape(inputs)[1]
    labels = b.core.cast(n.argmax(inputs, 2, False), "int32")
    best = n.max(inputs, (2,), False)
    steps = n.arange(0, time, 1, "int32")[None, :]
    lengths = b.core.cast(sequence_lengths, "int32")[:, None]
    past = steps >= lengths
    labels = n.where(past, const(labels, mask_index), labels)
    scores = -n.sum(n.where(past, const(best, 0.0), best), (1,), True)
    drop = labels == const(labels, mask_index)
    if merge_repeated:
        repeat = labels[:, 1:] == labels[:, :-1]
        no = labels[:, :1] != labels[:, :1]
        drop = n.logical_or(drop, n.concatenate([no, repeat], 1))
    # Keep the surviving labels in order, left-aligned, padded with -1.
    order = n.argsort(n.where(drop, const(steps, time), steps), 1)
    decoded = n.take_along_axis(n.where(drop, const(labels, -1), labels), order, 1)
    return b.core.cast(decoded, "int32")[None, ...], scores


def softplus(x: Tensor) -> Tensor:
    # logaddexp(x, 0) is exact everywhere (no switch to the identity for large x).
    return backend().numpy.logaddexp(x, const(x, 0.0))


# --- convolution, pooling, attention ----------------------------------------------------------
def depthwise_conv(
    inputs: Tensor,
    kernel: Tensor,
    strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    data_format: str,
    dilation_rate: tuple[int, ...],
) -> Tensor:
    """The grouped `conv` with one input channel per group."""
    b = backend()
    shape = tuple(b.core.shape(kernel))
    k = b.numpy.reshape(kernel, (*shape[:-2], 1, shape[-2] * shape[-1]))
    return b.nn.conv(inputs, k, strides, padding, data_format, dilation_rate)


def _adaptive_pool(
    x: Tensor, output_size: tuple[int, ...], data_format: str, reduce: Any
) -> Tensor:
    """Bin ``i`` of a dim of size ``n`` covers ``[floor(i*n/o), ceil((i+1)*n/o))``."""
    b = backend()
    n = b.numpy
    rank = len(b.core.shape(x))
    first = data_format == "channels_first"
    y = n.transpose(x, (0, *range(2, rank), 1)) if first else x
    for axis, out in enumerate(output_size, start=1):
        size = b.core.shape(y)[axis]
        bins = []
        for i in range(out):
            window = slice(i * size // out, -(-(i + 1) * size // out))
            bins.append(reduce(y[(slice(None),) * axis + (window, Ellipsis)], (axis,), False))
        y = n.stack(bins, axis)
    return n.transpose(y, (0, rank - 1, *range(1, rank - 1))) if first else y


def adaptive_average_pool(inputs: Tensor, output_size: tuple[int, ...], data_format: str) -> Tensor:
    return _adaptive_pool(inputs, output_size, data_format, backend().numpy.mean)


def adaptive_max_pool(inputs: Tensor, output_size: tuple[int, ...], data_format: str) -> Tensor:
    return _adaptive_pool(inputs, output_size, data_format, backend().numpy.max)


def dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    bias: Tensor | None,
    mask: Tensor | None,
    scale: float,
    is_causal: bool,
    attn_logits_soft_cap: float | None,
) -> Tensor:
    """The unfused formula, ``(B, T, N, H)`` layout; key/value heads repeat to the query's.

    Logits are ``q.k * scale + bias``, soft-capped, masked with ``-0.7 * finfo.max``,
    soft-maxed by the backend's softmax in float32 (at least) and cast back. Half-precision
    inputs are contracted in float32 too, as NumPy has no bfloat16 matmul.
    """
    import numpy as np

    from lamina.ops.composites.numpy import tril_mask

    b = backend()
    n = b.numpy
    dtype = dtype_of(query)
    wide = "float32" if dtype in ("float16", "bfloat16") else dtype
    q, k, v = (b.core.cast(t, wide) for t in (query, key, value))
    groups = b.core.shape(query)[2] // b.core.shape(key)[2]
    if groups > 1:
        k, v = n.repeat(k, groups, 2), n.repeat(v, groups, 2)
    logits = n.einsum("btnh,bsnh->bnts", q, k) * const(q, scale)
    if bias is not None:
        logits = logits + b.core.cast(bias, wide)
    if attn_logits_soft_cap is not None:
        cap = const(logits, attn_logits_soft_cap)
        logits = cap * n.tanh(n.divide(logits, cap))
    keep = mask
    if is_causal:
        t, s = b.core.shape(logits)[-2:]
        causal = tril_mask(t, s, 0)
        keep = causal if keep is None else n.logical_and(keep, causal)
    if keep is not None:
        floor = const(logits, -0.7 * float(np.finfo(dtype).max))
        logits = n.where(keep, logits, floor)
    # The backend's softmax: one fused kernel (tf.nn.softmax, torch.softmax) with its own
    # backward, where max, subtract, exp, sum and divide would each be a node.
    probs = b.core.cast(b.nn.softmax(logits, (3,)), dtype)
    out = n.einsum("bnts,bsnh->btnh", b.core.cast(probs, wide), v)
    return b.core.cast(out, dtype)
