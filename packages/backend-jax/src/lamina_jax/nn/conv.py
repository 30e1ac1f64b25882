"""jax: convolution, pooling, attention, CTC and patch ops (lax convolutions and windows)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lamina.backend.kit import AttentionCall, Ints, Pads, Pair, Tensor, fused_attention, patch_grid


def _dimension_numbers(n: int, data_format: str) -> lax.ConvDimensionNumbers:
    spatial = tuple(range(1, n + 1)) if data_format == "channels_last" else tuple(range(2, n + 2))
    feature = n + 1 if data_format == "channels_last" else 1
    io = (0, feature, *spatial)
    # Kernels are (*spatial, in, out): out dim n+1, in dim n.
    return lax.ConvDimensionNumbers(io, (n + 1, n, *range(n)), io)


def conv(
    inputs: Tensor,
    kernel: Tensor,
    strides: Ints,
    padding: Pads,
    data_format: str,
    dilation_rate: Ints,
) -> Tensor:
    n = len(strides)
    channels = inputs.shape[-1 if data_format == "channels_last" else 1]
    return lax.conv_general_dilated(
        inputs,
        kernel,
        window_strides=strides,
        padding=list(padding),
        rhs_dilation=dilation_rate,
        dimension_numbers=_dimension_numbers(n, data_format),
        feature_group_count=channels // kernel.shape[-2],
        precision=lax.Precision.HIGHEST,
    )


def conv_transpose(
    inputs: Tensor,
    kernel: Tensor,
    strides: Ints,
    padding: Pads,
    data_format: str,
    dilation_rate: Ints,
) -> Tensor:
    n = len(strides)
    k = jnp.swapaxes(jnp.flip(kernel, axis=tuple(range(n))), -1, -2)
    return lax.conv_general_dilated(
        inputs,
        k,
        window_strides=(1,) * n,
        padding=list(padding),
        lhs_dilation=strides,
        rhs_dilation=dilation_rate,
        dimension_numbers=_dimension_numbers(n, data_format),
        precision=lax.Precision.HIGHEST,
    )


def _window_args(pool: Ints, strides: Ints, pads: Pads, data_format: str) -> Any:
    if data_format == "channels_last":
        return (1, *pool, 1), (1, *strides, 1), ((0, 0), *pads, (0, 0))
    return (1, 1, *pool), (1, 1, *strides), ((0, 0), (0, 0), *pads)


def max_pool(
    inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str
) -> Tensor:
    dims, st, pads = _window_args(pool_size, strides, padding, data_format)
    return lax.reduce_window(inputs, -jnp.inf, lax.max, dims, st, pads)


def average_pool(
    inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str
) -> Tensor:
    dims, st, pads = _window_args(pool_size, strides, padding, data_format)
    zero = 0.0  # a Python constant: reduce_window needs a static init to differentiate
    total = lax.reduce_window(inputs, zero, lax.add, dims, st, pads)
    shape = [1] * inputs.ndim
    for i, d in enumerate(dims):
        if d > 1 or st[i] > 1 or pads[i] != (0, 0):
            shape[i] = inputs.shape[i]
    count = lax.reduce_window(jnp.ones(shape, inputs.dtype), zero, lax.add, dims, st, pads)
    return total / count


def _cudnn_fits(query: Tensor, key: Tensor, bias: Tensor | None, mask: Tensor | None) -> bool:
    """Whether cuDNN's fused attention takes these inputs: a GPU, half precision, head
    dims it tiles, and causal-only masking (it has no arbitrary-mask input)."""
    return (
        jax.default_backend() == "gpu"
        and query.dtype in (jnp.float16, jnp.bfloat16)
        and query.shape[-1] % 8 == 0
        and query.shape[-1] <= 128
        and bias is None
        and mask is None
    )


@fused_attention
def dot_product_attention(call: AttentionCall) -> Tensor | None:
    # XLA's fused kernel (cuDNN's on a GPU): faster and leaner than the unfused formula.
    query, key, value, bias, mask, scale, is_causal, _ = call
    if value.shape[-1] != query.shape[-1]:
        return None  # values as wide as keys only: the core's formula runs

    # `jax.nn` takes rank-4 bias and mask only.
    if bias is not None:
        bias = jnp.reshape(bias, (1,) * (4 - bias.ndim) + tuple(bias.shape))
    if mask is not None:
        mask = jnp.reshape(jnp.asarray(mask, bool), (1,) * (4 - mask.ndim) + tuple(mask.shape))
    if _cudnn_fits(query, key, bias, mask):
        try:
            return jax.nn.dot_product_attention(
                query, key, value, scale=scale, is_causal=is_causal, implementation="cudnn"
            )
        except (RuntimeError, ValueError, NotImplementedError):
            pass  # this cuDNN cannot run the shapes: XLA's kernel below can
    return jax.nn.dot_product_attention(
        query, key, value, bias=bias, mask=mask, scale=scale, is_causal=is_causal
    )


def ctc_loss(
    target: Tensor, output: Tensor, target_length: Tensor, output_length: Tensor, mask_index: int
) -> Tensor:
    logp = jax.nn.log_softmax(output.astype(jnp.promote_types(output.dtype, jnp.float32)))
    batch, time = logp.shape[:2]
    labels = target.shape[1]
    ext = jnp.full((batch, 2 * labels + 1), mask_index, dtype=jnp.int32)
    ext = ext.at[:, 1::2].set(target)
    width = ext.shape[1]
    neg = jnp.asarray(-jnp.inf, logp.dtype)
    # s may skip from s-2 when it holds a label differing from the label at s-2.
    skip = (
        jnp.zeros(ext.shape, bool)
        .at[:, 2:]
        .set((ext[:, 2:] != mask_index) & (ext[:, 2:] != ext[:, :-2]))
    )
    emit = jnp.take_along_axis(logp, jnp.broadcast_to(ext[:, None, :], (batch, time, width)), 2)
    init = jnp.full((batch, width), neg).at[:, 0].set(emit[:, 0, 0])
    if width > 1:
        init = init.at[:, 1].set(emit[:, 0, 1])

    def step(alpha: Tensor, t: Tensor) -> tuple[Tensor, None]:
        prev1 = jnp.concatenate([jnp.full((batch, 1), neg), alpha[:, :-1]], axis=1)
        prev2 = jnp.concatenate([jnp.full((batch, 2), neg), alpha[:, :-2]], axis=1)
        prev2 = jnp.where(skip, prev2, neg)
        new = jnp.logaddexp(jnp.logaddexp(alpha, prev1), prev2) + emit[:, t]
        return jnp.where((t < output_length)[:, None], new, alpha), None

    alpha, _ = lax.scan(step, init, jnp.arange(1, time))
    end = 2 * target_length
    rows = jnp.arange(batch)
    last = alpha[rows, end]
    before = jnp.where(end > 0, alpha[rows, jnp.maximum(end - 1, 0)], neg)
    return (-jnp.logaddexp(last, before)).astype(output.dtype)


def unfold(x: Tensor, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Tensor:
    n, c, h, w = x.shape
    grid = patch_grid((h, w), kernel_size, dilation, padding, stride)
    flat = jnp.pad(x, grid.pad_widths).reshape(n, c, -1)
    return flat[:, :, np.asarray(grid.positions)].reshape(n, c * grid.taps, grid.blocks)


def fold(
    x: Tensor, output_size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    grid = patch_grid(output_size, kernel_size, dilation, padding, stride)
    n, c = x.shape[0], x.shape[1] // grid.taps
    out = jnp.zeros((n, c, grid.cells), dtype=x.dtype)
    out = out.at[:, :, grid.positions.ravel()].add(x.reshape(n, c, -1))
    return out.reshape(n, c, *grid.padded)[grid.crop]
