"""The machinery `MultiHeadAttention` and `GroupQueryAttention` share: building from
several inputs, the masks, the fused and reference attention paths, output specs.

A subclass builds the query, key, value and output `EinsumDense` sublayers under the
attribute names of `_PROJECTIONS` (the names Keras 3 files key their weights by), the
optional ``_gate_dense``, the softmax and dropout sublayers, the attention equations and
``_resolved_axes``.
"""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.layers.attention import _common
from lamina.layers.core.einsum_dense import EinsumDense
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor


class ProjectedAttention(Layer):
    """Attention between learned projections of a query, a value and a key."""

    num_heads: int
    key_dim: int
    value_dim: int
    dropout: float
    flash_attention: bool | None
    partial_output_shape: tuple[int, ...] | None
    use_gate: bool
    sliding_window: int | None
    _PROJECTIONS: tuple[str, str, str, str] = ("query_dense", "key_dense", "value_dense",
                                               "output_dense")
    _softmax: Layer
    _dropout_layer: Layer

    def _init_attention(self, use_gate: Any, sliding_window: Any) -> None:
        if sliding_window is not None and (
            isinstance(sliding_window, bool)
            or not isinstance(sliding_window, int)
            or sliding_window < 1
        ):
            raise ValueError(
                f"{type(self).__name__}: argument `sliding_window` must be a positive int or "
                f"None. Received: sliding_window={sliding_window!r}"
            )
        self.use_gate = bool(use_gate)
        self.sliding_window = sliding_window
        self._gate_dense: EinsumDense | None = None
        self.supports_masking = True
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self.key_dim))
        self._resolved_axes: tuple[int, ...] = ()
        self._dot_product_equation = ""
        self._combine_equation = ""
        self._scores_requested = False

    def _expand_heads(self, key: Any, value: Any) -> tuple[Any, Any]:
        """Key and value with as many heads as the query, for the reference path."""
        return key, value

    def _maybe_build(self, args: tuple[Any, ...]) -> None:
        if self.built or not args:
            return
        if len(args) < 2 or args[1] is None:
            raise ValueError(
                f"{type(self).__name__}: the layer is called as `layer(query, value, key=None)`;"
                " argument `value` is required. Received: only `query`"
            )
        key = args[2] if len(args) > 2 else None
        self._build(
            {
                "query_shape": _common.shape_of(args[0]),
                "value_shape": _common.shape_of(args[1]),
                "key_shape": _common.shape_of(key),
            }
        )

    def get_build_config(self) -> dict[str, Any] | None:
        shapes = self._build_shapes
        if not isinstance(shapes, dict):
            return None
        return {
            "shapes_dict": {
                k: list(v) for k, v in shapes.items() if v is not None
            }
        }

    def build_from_config(self, config: dict[str, Any] | None) -> None:
        shapes = _common.shapes_from_build_config(config)
        if shapes is not None and not self.built:
            self._build(shapes)

    def _projections(self) -> tuple[EinsumDense, EinsumDense, EinsumDense, EinsumDense]:
        """The query, key, value and output sublayers."""
        q, k, v, o = (getattr(self, name) for name in self._PROJECTIONS)
        return q, k, v, o

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        names = ("query", "value", "key")
        given = list(args)
        if any(n in kwargs for n in names[len(given) :]):
            for n in names[len(given) :]:
                given.append(kwargs.pop(n, None))
            while given and given[-1] is None:
                given.pop()
        object.__setattr__(self, "_scores_requested", bool(kwargs.get("return_attention_scores")))
        return super().__call__(*given, **kwargs)

    def call(
        self,
        query: Any,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: bool | None = None,
        use_causal_mask: bool = False,
        mask: Any = None,
    ) -> Any:
        # `mask` is the query's mask as the functional graph hands it to a layer; a value
        # that is the query itself (self-attention) shares it.
        query_mask = _common.implicit_mask(query, query_mask if query_mask is not None else mask)
        value_mask = _common.implicit_mask(value, value_mask)
        if value_mask is None and value is query:
            value_mask = query_mask
        if key is None:
            key = value  # an explicit `key_mask` still applies; the value's mask already does
        else:
            key_mask = _common.implicit_mask(key, key_mask)
        fused = self._fused_ok(len(query.shape) + 1, training, return_attention_scores)
        # The fused kernel takes causality as a flag, so only the reference path builds it.
        mask_all = _common.attention_mask(
            query,
            value,
            query_mask,
            value_mask,
            key_mask,
            attention_mask,
            use_causal_mask and not fused,
        )
        if self.sliding_window is not None:
            band = _common.band_mask(
                ops.shape(query)[1], ops.shape(value)[1], self.sliding_window
            )
            mask_all = band if mask_all is None else ops.logical_and(mask_all, band)
        query_dense, key_dense, value_dense, output_dense = self._projections()
        q = query_dense(query)
        k = key_dense(key)
        v = value_dense(value)
        if fused:
            out = ops.dot_product_attention(
                q,
                k,
                v,
                mask=None if mask_all is None else ops.expand_dims(mask_all, -3),
                scale=self._inverse_sqrt_key_dim,
                is_causal=bool(use_causal_mask),
                flash_attention=self.flash_attention,
            )
            scores = None
        else:
            k, v = self._expand_heads(k, v)
            out, scores = self._reference_attention(q, k, v, mask_all, training)
        if self._gate_dense is not None:
            out = ops.multiply(out, ops.sigmoid(self._gate_dense(query)))
        out = output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def _fused_ok(self, rank: int, training: Any, return_scores: bool) -> bool:
        """Whether the fused kernel gives the layer's result: one sequence axis, no scores
        asked for, and no dropout to apply to the probabilities."""
        if return_scores:
            if self.flash_attention:
                raise ValueError(
                    f"{type(self).__name__}: `return_attention_scores=True` needs the scores, "
                    "which a flash attention kernel never forms. Received: "
                    "flash_attention=True; pass flash_attention=None or False."
                )
            return False
        return rank == 4 and self._resolved_axes == (1,) and not (training and self.dropout > 0)

    def _reference_attention(
        self, query: Any, key: Any, value: Any, mask: Any, training: Any
    ) -> tuple[Any, Any]:
        """Attention with the probabilities formed: for scores, dropout and several axes."""
        query = ops.multiply(query, ops.cast(self._inverse_sqrt_key_dim, query.dtype))
        scores = ops.einsum(self._dot_product_equation, key, query)
        if mask is not None:
            # Mask axes are (batch..., query..., key...): insert the heads axis (and any
            # other missing leading axes) before the query axes.
            at = -2 * len(self._resolved_axes) - 1
            while len(mask.shape) < len(scores.shape):
                mask = ops.expand_dims(mask, at)
        scores = self._softmax(scores, mask=mask)
        dropped = self._dropout_layer(scores, training=training)
        return ops.einsum(self._combine_equation, dropped, value), scores

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        # The output keeps the query's padding; the scores carry no mask.
        if self._scores_requested:
            return (previous_mask, None)
        return previous_mask

    # --- shapes and config ---------------------------------------------------------------
    def compute_output_shape(
        self, query_shape: Any, value_shape: Any = None, key_shape: Any = None
    ) -> tuple[Any, ...]:
        return self._output_shape(tuple(query_shape))

    def _output_shape(self, query_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.partial_output_shape:
            return (*query_shape[:-1], *self.partial_output_shape)
        return query_shape

    def compute_output_spec(
        self,
        query: Any,
        value: Any = None,
        key: Any = None,
        *args: Any,
        return_attention_scores: bool = False,
        **kwargs: Any,
    ) -> Any:
        out = SymbolicTensor(self._output_shape(tuple(query.shape)), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        if value is None:
            raise ValueError(
                f"{type(self).__name__}: argument `value` is required. Received: value=None"
            )
        source = value if key is None else key
        rank = len(query.shape) + 1
        axes = self._resolved_axes or tuple(range(1, rank - 2))
        batch = [i for i in range(rank) if i not in axes and i != rank - 1]
        projected_q = (*query.shape[:-1], self.num_heads)
        projected_k = (*source.shape[:-1], self.num_heads)
        shape = (
            *[projected_q[i] for i in batch],
            *[projected_q[i] for i in axes],
            *[projected_k[i] for i in axes],
        )
        return out, SymbolicTensor(shape, dtype=self.compute_dtype)
