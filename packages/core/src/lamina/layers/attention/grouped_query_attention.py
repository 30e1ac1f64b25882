"""`GroupQueryAttention`: attention where groups of query heads share one key/value head.

Fewer key and value heads shrink the key/value projections (and a decoder's cache) while
keeping every query head. The fused kernel takes the grouped heads as they are; the
reference path repeats each key/value head over its group.
"""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.activations.activations import Softmax
from lamina.layers.attention import _common
from lamina.layers.attention._projected import ProjectedAttention
from lamina.layers.core import _args
from lamina.layers.core.einsum_dense import EinsumDense
from lamina.layers.regularization.dropout import Dropout


class GroupedQueryAttention(ProjectedAttention):
    """Grouped-query attention (Ainslie et al., 2023) over the sequence axis.

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key and value heads; it must divide
            `num_query_heads` (equal: multi-head attention; 1: multi-query attention).
        dropout: the dropout rate on the attention probabilities.
        use_bias: whether the projections have biases.
        use_gate: multiply the heads by ``sigmoid(gate(query))`` before the output
            projection.
        sliding_window: if set, each query sees only the keys fewer than this many
            positions away.
        flash_attention: a kernel hint for the fused path; True refuses
            ``return_attention_scores``.
        kernel_initializer: initializer of the projection kernels.
        bias_initializer: initializer of the projection biases.
        kernel_regularizer: penalty on the kernels.
        bias_regularizer: penalty on the biases.
        activity_regularizer: penalty on the output.
        kernel_constraint: projection of the kernels after each update.
        bias_constraint: projection of the biases after each update.
        seed: seed of the attention dropout.
        **kwargs: base `Layer` arguments.

    Call arguments are those of `MultiHeadAttention`, on ``(batch, len, dim)`` inputs.

    Example:
        >>> x = np.ones((2, 6, 32), "float32")
        >>> gqa = lamina.layers.GroupQueryAttention(16, num_query_heads=8, num_key_value_heads=2)
        >>> out = gqa(x, x, use_causal_mask=True)
        >>> tuple(out.shape)
        (2, 6, 32)
    """

    def __init__(
        self,
        head_dim: int,
        num_query_heads: int,
        num_key_value_heads: int,
        dropout: float = 0.0,
        use_bias: bool = True,
        use_gate: bool = False,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        where = "GroupQueryAttention"
        self.head_dim = _args.positive_int(where, "head_dim", head_dim)
        self.num_query_heads = _args.positive_int(where, "num_query_heads", num_query_heads)
        self.num_key_value_heads = _args.positive_int(
            where, "num_key_value_heads", num_key_value_heads
        )
        if self.num_query_heads % self.num_key_value_heads:
            raise ValueError(
                f"{where}: argument `num_query_heads` must be a multiple of "
                f"`num_key_value_heads`. Received: num_query_heads={num_query_heads}, "
                f"num_key_value_heads={num_key_value_heads}"
            )
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        self.num_heads = self.num_query_heads
        self.key_dim = self.value_dim = self.head_dim
        self.dropout = _args.rate_in_unit(where, dropout, arg="dropout")
        self.use_bias = bool(use_bias)
        if flash_attention not in (None, True, False):
            raise ValueError(
                f"{where}: argument `flash_attention` must be None or a bool. "
                f"Received: flash_attention={flash_attention!r}"
            )
        self.flash_attention = flash_attention
        self.partial_output_shape = None
        _common.set_weight_args(
            self,
            kernel_initializer,
            bias_initializer,
            kernel_regularizer,
            bias_regularizer,
            kernel_constraint,
            bias_constraint,
        )
        self.seed = seed
        self._init_attention(use_gate, sliding_window)

    def build(
        self, query_shape: Any = None, value_shape: Any = None, key_shape: Any = None
    ) -> None:
        if isinstance(query_shape, dict):  # from `_maybe_build` or a build config
            query_shape, value_shape, key_shape = (
                query_shape.get("query_shape"),
                query_shape.get("value_shape"),
                query_shape.get("key_shape"),
            )
        if query_shape is None or value_shape is None:
            raise ValueError(
                "GroupQueryAttention.build needs `query_shape` and `value_shape`. "
                f"Received: query_shape={query_shape}, value_shape={value_shape}"
            )
        shapes = {"query": tuple(query_shape), "value": tuple(value_shape)}
        shapes["key"] = shapes["value"] if key_shape is None else tuple(key_shape)
        for arg, shape in shapes.items():
            if len(shape) != 3:
                raise ValueError(
                    f"GroupQueryAttention: argument `{arg}` must have rank 3 (batch, len, dim)."
                    f" Received: {arg}_shape={shape}"
                )
        common = _common.sublayer_kwargs(self)
        bias = self.use_bias

        def projection(name: str, equation: str, heads: int, axes: str) -> EinsumDense:
            source = "query" if name == "gate" else name
            layer = EinsumDense(
                equation,
                output_shape=(None, heads, self.head_dim),
                bias_axes=axes if bias else None,
                name=name,
                **common,
            )
            layer._build(shapes[source])
            return layer

        self._query_dense = projection("query", "bqm,muh->bquh", self.num_query_heads, "uh")
        self._key_dense = projection("key", "bkm,mvh->bkvh", self.num_key_value_heads, "vh")
        if self.use_gate:  # created here so the weights list in Keras 3's order
            self._gate_dense = projection("gate", "bqm,muh->bquh", self.num_query_heads, "uh")
        self._value_dense = projection("value", "bkm,mvh->bkvh", self.num_key_value_heads, "vh")
        self._resolved_axes = (1,)
        self._dot_product_equation = "bkuh,bquh->buqk"
        self._combine_equation = "buqk,bkuh->bquh"
        self._softmax = Softmax(axis=-1, dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self.dtype_policy)
        self.feature_dim = shapes["query"][-1]
        self._output_dense = EinsumDense(
            "bquh,uhm->bqm",
            output_shape=(None, self.feature_dim),
            bias_axes="m" if bias else None,
            name="attention_output",
            **common,
        )
        self._output_dense._build(
            (*shapes["query"][:-1], self.num_query_heads, self.head_dim)
        )
        self.built = True

    _PROJECTIONS = ("_query_dense", "_key_dense", "_value_dense", "_output_dense")

    @property
    def query_dense(self) -> EinsumDense:
        return self._query_dense

    @property
    def key_dense(self) -> EinsumDense:
        return self._key_dense

    @property
    def value_dense(self) -> EinsumDense:
        return self._value_dense

    @property
    def output_dense(self) -> EinsumDense:
        return self._output_dense

    def _expand_heads(self, key: Any, value: Any) -> tuple[Any, Any]:
        if self.num_repeats == 1:
            return key, value
        return (
            ops.repeat(key, self.num_repeats, axis=2),
            ops.repeat(value, self.num_repeats, axis=2),
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "head_dim": self.head_dim,
                "num_query_heads": self.num_query_heads,
                "num_key_value_heads": self.num_key_value_heads,
                "use_bias": self.use_bias,
                "use_gate": self.use_gate,
                "sliding_window": self.sliding_window,
                "dropout": self.dropout,
                "flash_attention": self.flash_attention,
                "seed": self.seed,
            }
        )
        config.update(_common.weight_config(self))
        return config


GroupQueryAttention = GroupedQueryAttention
"""The name Keras 3 exports the layer under (and writes in its configs); its files key the
layer's weights by the class name, ``grouped_query_attention``."""
