"""`fused_attention`: a backend's fused attention kernel as the `dot_product_attention` override."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from lamina.backend.protocols._types import Tensor


class AttentionCall(NamedTuple):
    """The arguments the core hands `nn.dot_product_attention`, in its ``(B, T, N, H)`` layout
    (key and value heads may divide the query's: grouped-query attention)."""

    query: Tensor
    key: Tensor
    value: Tensor
    bias: Tensor | None
    mask: Tensor | None
    scale: float
    is_causal: bool
    attn_logits_soft_cap: float | None


Attention = Callable[
    [Tensor, Tensor, Tensor, Tensor | None, Tensor | None, float, bool, float | None],
    Tensor | None,
]
"""The override's signature: the `AttentionCall` fields, positionally."""


def fused_attention(kernel: Callable[[AttentionCall], Tensor | None]) -> Attention:
    """The `dot_product_attention` override running `kernel` on one `AttentionCall`.

    Fused kernels take no logit soft cap, so a call with one goes to the core's unfused
    formula without reaching `kernel`; `kernel` itself returns None for any other call it
    cannot take (the formula then runs too).

    Example:
        >>> from lamina.backend.kit import AttentionCall, fused_attention
        >>> @fused_attention
        ... def dot_product_attention(call: AttentionCall):
        ...     return None  # a real kernel returns the (B, T, N, H) output
    """

    def member(*args: Any) -> Tensor | None:
        call = AttentionCall(*args)
        return None if call.attn_logits_soft_cap is not None else kernel(call)

    return member
