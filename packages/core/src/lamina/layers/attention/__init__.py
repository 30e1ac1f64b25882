"""Attention layers: `MultiHeadAttention`, `GroupQueryAttention`, `Attention`,
`AdditiveAttention`."""

from lamina.layers.attention.multi_head_attention import MultiHeadAttention as MultiHeadAttention

__all__ = ["MultiHeadAttention"]
