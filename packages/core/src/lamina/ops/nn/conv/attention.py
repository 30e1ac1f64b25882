"""Scaled dot-product attention with grouped-query heads, bias, masks and soft-capping."""

from __future__ import annotations

import math
from typing import Any

from lamina.ops.base import Op
from lamina.ops.composites import fallback
from lamina.ops.dispatch import backend, promote, to_tensor
from lamina.ops.nn.conv._args import float_result
from lamina.ops.shapes import Shape, broadcast_shapes, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["dot_product_attention"]


def _same(op: str, what: str, a: int | None, b: int | None, shapes: str) -> None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"`{op}`: {what} must match ({a} vs {b}). Received: {shapes}")


class DotProductAttention(Op):
    def __init__(
        self,
        scale: float | None = None,
        is_causal: bool = False,
        flash_attention: bool | None = None,
        attn_logits_soft_cap: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        op = self.op_name
        if scale is not None and not isinstance(scale, (int, float)):
            raise TypeError(f"`{op}`: argument `scale` must be a float. Received: scale={scale!r}")
        if flash_attention not in (None, True, False):
            raise ValueError(
                f"`{op}`: argument `flash_attention` must be None or a bool. "
                f"Received: flash_attention={flash_attention!r}"
            )
        cap = attn_logits_soft_cap
        if cap is not None and (not isinstance(cap, (int, float)) or cap <= 0):
            raise ValueError(
                f"`{op}`: argument `attn_logits_soft_cap` must be a positive float or None. "
                f"Received: attn_logits_soft_cap={cap!r}"
            )
        self.scale = None if scale is None else float(scale)
        self.is_causal = bool(is_causal)
        # Flash attention is a kernel choice, not a different result: accepted as a hint.
        self.flash_attention = flash_attention
        self.attn_logits_soft_cap = None if cap is None else float(cap)

    def _plan(self, q: Shape, k: Shape, v: Shape, bias: Any, mask: Any) -> Shape:
        op = self.op_name
        for arg, shape in (("query", q), ("key", k), ("value", v)):
            if len(shape) != 4:
                raise ValueError(
                    f"`{op}`: argument `{arg}` must have rank 4 (batch, seq, heads, dim). "
                    f"Received: {arg}.shape={shape}"
                )
        shapes = f"query.shape={q}, key.shape={k}, value.shape={v}"
        _same(op, "the batch sizes", q[0], k[0], shapes)
        _same(op, "the batch sizes", k[0], v[0], shapes)
        _same(op, "the key and value lengths", k[1], v[1], shapes)
        _same(op, "the key and value head counts", k[2], v[2], shapes)
        _same(op, "the query and key head dims", q[3], k[3], shapes)
        if q[2] is not None and k[2] is not None and (k[2] == 0 or q[2] % k[2]):
            raise ValueError(
                f"`{op}`: the query heads ({q[2]}) must be a multiple of the key heads "
                f"({k[2]}). Received: {shapes}"
            )
        logits = (q[0], q[2], q[1], k[1])
        for arg, t in (("bias", bias), ("mask", mask)):
            if t is not None:
                s = static_shape(t)
                if len(s) > 4 or broadcast_shapes(op, s, logits) != logits:
                    raise ValueError(
                        f"`{op}`: argument `{arg}` must broadcast to (batch, heads, "
                        f"query_len, key_len) = {logits}. Received: {arg}.shape={s}"
                    )
        return (q[0], q[1], q[2], v[3])

    def compute_output_spec(
        self, query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None
    ) -> SymbolicTensor:
        shape = self._plan(static_shape(query), static_shape(key), static_shape(value), bias, mask)
        return SymbolicTensor(shape, float_result(self.op_name, query, key, value))

    def call(self, query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None) -> Any:
        self._plan(static_shape(query), static_shape(key), static_shape(value), bias, mask)
        dtype = float_result(self.op_name, query, key, value)
        q, k, v = promote(self.op_name, query, key, value, dtype=dtype)
        scale = self.scale
        if scale is None:
            scale = 1.0 / math.sqrt(int(static_shape(query)[-1] or 1))
        b = None if bias is None else to_tensor(bias, dtype)
        m = None if mask is None else to_tensor(mask, "bool")
        args = (q, k, v, b, m, scale, self.is_causal, self.attn_logits_soft_cap)
        # A backend's fused kernel where it has one and takes these arguments, else the
        # unfused formula.
        kernel = getattr(backend().nn, "dot_product_attention", None)
        out = None if kernel is None else kernel(*args)
        return fallback("nn", "dot_product_attention")(*args) if out is None else out


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    scale: float | None = None,
    is_causal: bool = False,
    flash_attention: bool | None = None,
    attn_logits_soft_cap: float | None = None,
) -> Any:
    """Scaled dot-product attention, ``softmax(q k^T * scale + bias) v``.

    Args:
        query: ``(batch, query_len, heads, dim)``.
        key: ``(batch, key_len, kv_heads, dim)``; `heads` must be a multiple of `kv_heads`
            (grouped-query attention).
        value: ``(batch, key_len, kv_heads, value_dim)``.
        bias: optional, broadcastable to ``(batch, heads, query_len, key_len)``.
        mask: optional bool, same broadcast; False drops a key for a query (a query
            with every key dropped averages all values, as JAX's kernel gives).
        scale: the logit scale (default ``1 / sqrt(dim)``).
        is_causal: mask keys after each query (top-left aligned).
        flash_attention: a kernel hint; the result is the same. Each backend runs its
            fused kernel (PyTorch `scaled_dot_product_attention`, JAX
            `jax.nn.dot_product_attention`, one XLA cluster on TensorFlow) whenever it
            computes this op; `reference_dot_product_attention` is the unfused formula.
        attn_logits_soft_cap: if set, logits become ``cap * tanh(logits / cap)``.

    Returns:
        ``(batch, query_len, heads, value_dim)``.

    Example:
        >>> q = np.ones((2, 4, 8, 16)); lamina.ops.dot_product_attention(q, q, q).shape
    """
    op = DotProductAttention(scale, is_causal, flash_attention, attn_logits_soft_cap)
    return op(query, key, value, bias, mask)


def reference_dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    scale: float | None = None,
    is_causal: bool = False,
    attn_logits_soft_cap: float | None = None,
) -> Any:
    """`dot_product_attention` written out in `lamina.ops`, with the probabilities formed.

    The yardstick the backends' fused kernels are tested against, and readable
    documentation of what they compute. Arguments and result are those of
    `dot_product_attention`; half-precision logits are normalized in float32.
    """
    from lamina import ops

    dtype = float_result("reference_dot_product_attention", query, key, value)
    q, k, v = (ops.cast(t, dtype) for t in (query, key, value))
    groups = int(static_shape(q)[2] or 1) // int(static_shape(k)[2] or 1)
    if groups > 1:
        k, v = ops.repeat(k, groups, axis=2), ops.repeat(v, groups, axis=2)
    if scale is None:
        scale = 1.0 / math.sqrt(int(static_shape(q)[-1] or 1))
    work = "float64" if dtype == "float64" else "float32"
    logits = ops.einsum("btnh,bsnh->bnts", ops.cast(q, work), ops.cast(k, work)) * scale
    if bias is not None:
        logits = logits + ops.cast(bias, work)
    if attn_logits_soft_cap is not None:
        logits = ops.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    keep = None if mask is None else ops.broadcast_to(ops.cast(mask, "bool"), ops.shape(logits))
    if is_causal:
        t, s = ops.shape(logits)[-2], ops.shape(logits)[-1]
        causal = ops.cast(ops.tril(ops.ones((t, s), "float32")), "bool")
        keep = causal if keep is None else ops.logical_and(keep, causal)
    if keep is not None:
        low = -1e30 if work == "float64" else -1e9
        logits = ops.where(keep, logits, ops.full_like(logits, low))
    probs = ops.softmax(logits, axis=-1)
    out = ops.einsum("bnts,bsnh->btnh", probs, ops.cast(v, work))
    return ops.cast(out, dtype)
