"""torch: convolution, pooling, attention, CTC and patch ops (torch.nn.functional)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from lamina.backend.kit import AttentionCall, InLayout, Ints, Pads, Pair, Tensor, fused_attention

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_ADAPTIVE_AVG: dict[int, Callable[..., Tensor]] = {
    1: F.adaptive_avg_pool1d,
    2: F.adaptive_avg_pool2d,
    3: F.adaptive_avg_pool3d,
}
_ADAPTIVE_MAX: dict[int, Callable[..., Tensor]] = {
    1: F.adaptive_max_pool1d,
    2: F.adaptive_max_pool2d,
    3: F.adaptive_max_pool3d,
}


_FIRST = InLayout("channels_first", torch.movedim)
"""torch.nn.functional's kernels read channels_first tensors."""


def _pad(x: Tensor, pads: Pads, value: float = 0.0) -> Tensor:
    """Pad (negative: crop) the spatial dims of a channels_first tensor; F.pad lists dims
    last-first."""
    flat = [p for pair in reversed(pads) for p in pair]
    return F.pad(x, flat, value=value) if any(flat) else x


def _symmetric(pads: Pads, limit: Ints | None = None) -> tuple[int, ...] | None:
    """`pads` as one count per dim when each dim is padded alike on both sides (and by at
    most half of `limit`, the pooling window, as torch's pools require): the kernel's own
    padding argument then does it, without an `F.pad` copy of the input."""
    if any(a != b or a < 0 for a, b in pads):
        return None
    if limit is not None and any(2 * a > k for (a, _), k in zip(pads, limit)):
        return None
    return tuple(a for a, _ in pads)


def _weight(kernel: Tensor) -> Tensor:
    """Keras' ``(*spatial, a, b)`` kernel as torch's ``(b, a, *spatial)``."""
    n = kernel.ndim - 2
    return kernel.permute(n + 1, n, *range(n))


@_FIRST.conv
def conv(inputs: Tensor, kernel: Tensor, strides: Ints, padding: Pads, dilation: Ints) -> Tensor:
    groups = inputs.shape[1] // kernel.shape[-2]
    same = _symmetric(padding)
    if same is not None:
        return _CONV[len(strides)](inputs, _weight(kernel), None, strides, same, dilation, groups)
    x = _pad(inputs, padding)
    return _CONV[len(strides)](x, _weight(kernel), None, strides, 0, dilation, groups)


@_FIRST.conv
def conv_transpose(
    x: Tensor, kernel: Tensor, strides: Ints, padding: Pads, dilation_rate: Ints
) -> Tensor:
    n = len(strides)
    # The unpadded transpose equals pads (span - 1, span - 1); crop or extend from there.
    y = _CONV_T[n](x, _weight(kernel), None, strides, 0, 0, 1, dilation_rate)
    spans = [(kernel.shape[i] - 1) * dilation_rate[i] + 1 for i in range(n)]
    return _pad(y, tuple((a - s + 1, b - s + 1) for (a, b), s in zip(padding, spans)))


@_FIRST.pool
def max_pool(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    same = _symmetric(padding, pool_size)
    if same is not None:  # torch pads with -inf itself
        return _MAX[len(pool_size)](x, pool_size, strides, same)
    return _MAX[len(pool_size)](_pad(x, padding, -math.inf), pool_size, strides)


def _average_pool_first(x: Tensor, pool_size: Ints, strides: Ints, padding: Pads) -> Tensor:
    n = len(pool_size)
    if n == 3 and x.dtype == torch.float16 and x.device.type == "cpu":
        # torch has no CPU float16 kernel for 3D average pooling: pool in float32.
        return _average_pool_first(x.float(), pool_size, strides, padding).half()
    same = _symmetric(padding, pool_size)
    if same is not None:  # padded cells left out of each mean by torch itself
        return _AVG[n](x, pool_size, strides, same, count_include_pad=False)
    total = _AVG[n](_pad(x, padding), pool_size, strides)
    if any(p for pair in padding for p in pair):
        # Padded cells must not count: divide by the mean of a padded mask of ones.
        ones = torch.ones((1, 1, *x.shape[2:]), dtype=x.dtype, device=x.device)
        total = total / _AVG[n](_pad(ones, padding), pool_size, strides)
    return total


average_pool = _FIRST.pool(_average_pool_first)


# Native kernel: F.adaptive_avg_pool* pools every bin in one op (the composite slices per bin).
def adaptive_average_pool(inputs: Tensor, output_size: Ints, data_format: str) -> Tensor:
    x = _FIRST.to(inputs, data_format)
    return _FIRST.back(_ADAPTIVE_AVG[len(output_size)](x, output_size), data_format)


# Native kernel: F.adaptive_max_pool* (the composite slices per bin).
def adaptive_max_pool(inputs: Tensor, output_size: Ints, data_format: str) -> Tensor:
    x = _FIRST.to(inputs, data_format)
    return _FIRST.back(_ADAPTIVE_MAX[len(output_size)](x, output_size), data_format)


@fused_attention
def dot_product_attention(call: AttentionCall) -> Tensor | None:
    # `scaled_dot_product_attention`: flash/memory-efficient kernels (no soft cap: the kit
    # hands those calls to the core's unfused formula).
    query, key, value, bias, mask, scale, is_causal, _ = call
    # `scaled_dot_product_attention` takes (batch, heads, len, dim) and refuses a mask
    # together with `is_causal`: causality stays a flag unless another mask is given.
    q, k, v = (t.transpose(1, 2) for t in (query, key, value))
    t, s = q.shape[-2], k.shape[-2]
    keep = mask
    flag = is_causal and mask is None and bias is None
    if is_causal and not flag:
        tri = torch.tril(torch.ones((t, s), dtype=torch.bool, device=q.device))
        keep = tri if keep is None else keep & tri
    attn_mask = keep
    if bias is not None:
        attn_mask = bias.to(q.dtype)
        if keep is not None:
            attn_mask = attn_mask.masked_fill(~keep, -0.7 * torch.finfo(q.dtype).max)
    out = torch.nn.functional.scaled_dot_product_attention(
        q,
        k,
        v,
        attn_mask=attn_mask,
        is_causal=flag,
        scale=scale,
        enable_gqa=k.shape[1] != q.shape[1],
    )
    if keep is not None:
        # A query whose keys are all masked averages every value, as the unfused formula
        # (and JAX's kernel) give; the kernel alone gives zeros there.
        hidden = ~torch.broadcast_to(keep, (*out.shape[:-1], s)).any(dim=-1, keepdim=True)
        mean = v.mean(dim=-2, keepdim=True)
        if mean.shape[1] != out.shape[1]:
            mean = torch.repeat_interleave(mean, out.shape[1] // mean.shape[1], dim=1)
        out = torch.where(hidden, mean.to(out.dtype), out)
    return out.transpose(1, 2)


def ctc_loss(
    target: Tensor, output: Tensor, target_length: Tensor, output_length: Tensor, mask_index: int
) -> Tensor:
    # F.ctc_loss wants time-major log-probabilities in float32/64 and int64 lengths.
    work = torch.promote_types(output.dtype, torch.float32)
    logp = torch.log_softmax(output.to(work), dim=-1).transpose(0, 1)
    loss = F.ctc_loss(
        logp,
        target.long(),
        output_length.long(),
        target_length.long(),
        blank=mask_index,
        reduction="none",
    )
    return loss.to(output.dtype)


# Native kernels: F.unfold and F.fold (im2col/col2im) rather than a gather and a scatter-add.
def unfold(x: Tensor, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Tensor:
    return F.unfold(x, kernel_size, dilation, padding, stride)


def fold(
    x: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    return F.fold(x, output_size, kernel_size, dilation, padding, stride)
