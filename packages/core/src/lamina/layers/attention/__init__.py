"""Attention layers: `MultiHeadAttention`, `GroupQueryAttention` (also `GroupedQueryAttention`),
`Attention`, `AdditiveAttention`."""

from lamina.layers.attention.attention import AdditiveAttention as AdditiveAttention
from lamina.layers.attention.attention import Attention as Attention
from lamina.layers.attention.grouped_query_attention import (
    GroupedQueryAttention as GroupedQueryAttention,
)
from lamina.layers.attention.grouped_query_attention import (
    GroupQueryAttention as GroupQueryAttention,
)
from lamina.layers.attention.multi_head_attention import MultiHeadAttention as MultiHeadAttention

__all__ = [
    "AdditiveAttention",
    "Attention",
    "GroupQueryAttention",
    "GroupedQueryAttention",
    "MultiHeadAttention",
]
