"""`MultiHeadAttention`: projected multi-head attention over one or more axes.

The layout follows Keras 3 so its files load both ways: four `EinsumDense` sublayers
(``query``, ``key``, ``value``, ``attention_output``) whose kernels are
``(dim, heads, key_dim)`` for the input projections and ``(heads, value_dim, dim)`` for
the output. With one attention axis and no scores requested, attention runs through
`ops.dot_product_attention`, which each backend maps to its fused kernel.
"""

from __future__ import annotations

import string
from typing import Any

from lamina.layers.activations.activations import Softmax
from lamina.layers.attention import _common
from lamina.layers.attention._projected import ProjectedAttention
from lamina.layers.core import _args
from lamina.layers.core.einsum_dense import EinsumDense
from lamina.layers.regularization.dropout import Dropout

_LETTERS = string.ascii_lowercase


def projection_equation(free: int, bound: int, produced: int) -> tuple[str, str, int]:
    """An einsum keeping `free` leading axes, contracting `bound` axes with the kernel and
    appending `produced` kernel axes; returns the equation, the bias axes and the output
    rank. ``projection_equation(2, 1, 2)`` is ``"abc,cde->abde"`` with bias ``"de"``."""
    kept = _LETTERS[:free]
    contracted = _LETTERS[free : free + bound]
    added = _LETTERS[free + bound : free + bound + produced]
    return f"{kept}{contracted},{contracted}{added}->{kept}{added}", added, free + produced


def attention_equations(rank: int, axes: tuple[int, ...]) -> tuple[str, str, int]:
    """The score and combine einsums for projected tensors of `rank` attending over
    `axes`: scores are ``(batch axes..., heads, query axes..., key axes...)``."""
    target = _LETTERS[:rank]
    batch = [i for i in range(rank) if i not in axes and i != rank - 1]
    source = list(target)
    extra = iter(_LETTERS[rank:])
    for i in axes:
        source[i] = next(extra)
    src = "".join(source)
    product = "".join(
        [target[i] for i in batch] + [target[i] for i in axes] + [src[i] for i in axes]
    )
    return f"{src},{target}->{product}", f"{product},{src}->{target}", len(product)


class MultiHeadAttention(ProjectedAttention):
    """Multi-head attention (Vaswani et al., 2017) with Keras 3's arguments and weights.

    The query, key and value are projected to `num_heads` heads, attention runs over
    `attention_axes`, and the heads are projected back to the query's last dimension
    (or to `output_shape`).

    Args:
        num_heads: the number of heads.
        key_dim: the size of each query and key head.
        value_dim: the size of each value head (default `key_dim`).
        dropout: the dropout rate on the attention probabilities.
        use_bias: whether the projections have biases.
        output_shape: the trailing output shape (an int or tuple); default the query's
            last dimension.
        attention_axes: the axes attention runs over (batch and feature axes excluded);
            default every axis between them, e.g. the sequence axis.
        sliding_window: if set, each query sees only the keys fewer than this many
            positions away (a band; with ``use_causal_mask``, a causal window).
        flash_attention: a kernel hint for the fused path; True refuses
            ``return_attention_scores`` (a flash kernel never forms the scores).
        kernel_initializer: initializer of the projection kernels.
        bias_initializer: initializer of the projection biases.
        kernel_regularizer: penalty on the kernels.
        bias_regularizer: penalty on the biases.
        activity_regularizer: penalty on the output.
        kernel_constraint: projection of the kernels after each update.
        bias_constraint: projection of the biases after each update.
        use_gate: multiply the heads by ``sigmoid(gate(query))`` (a learned ``gate``
            projection of the query) before the output projection.
        seed: seed of the attention dropout.
        **kwargs: base `Layer` arguments.

    Call arguments:
        query: ``(batch, ..., query_dim)``.
        value: ``(batch, ..., value_features)``.
        key: like `value` (default `value`).
        query_mask, value_mask, key_mask: padding masks ``(batch, ...)``; by default the
            masks a masking layer (``Embedding(mask_zero=True)``) attached to the inputs.
        attention_mask: bool ``(batch, query_len, key_len)``; False hides a key.
        return_attention_scores: also return the ``(batch, heads, query_len, key_len)``
            attention probabilities.
        training: whether dropout is active.
        use_causal_mask: hide the keys after each query (a decoder's mask).

    Example:
        >>> x = np.ones((2, 6, 32), "float32")  # (batch, steps, features)
        >>> mha = lamina.layers.MultiHeadAttention(num_heads=4, key_dim=16)
        >>> out = mha(x, x, use_causal_mask=True)  # self-attention, shape of x
        >>> tuple(out.shape)
        (2, 6, 32)
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: int | None = None,
        flash_attention: bool | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        where = "MultiHeadAttention"
        self.num_heads = _args.positive_int(where, "num_heads", num_heads)
        self.key_dim = _args.positive_int(where, "key_dim", key_dim)
        self.value_dim = (
            self.key_dim if value_dim is None else _args.positive_int(where, "value_dim", value_dim)
        )
        self.dropout = _args.rate_in_unit(where, dropout, arg="dropout")
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        if output_shape is not None and not (
            isinstance(output_shape, (list, tuple))
            and all(isinstance(d, int) for d in output_shape)
        ):
            raise ValueError(
                f"{where}: argument `output_shape` must be an int, a tuple of ints or None. "
                f"Received: output_shape={output_shape!r}"
            )
        self.partial_output_shape: tuple[int, ...] | None = (
            None if output_shape is None else tuple(output_shape)
        )
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        if attention_axes is not None and not (
            isinstance(attention_axes, (list, tuple))
            and attention_axes
            and all(isinstance(a, int) for a in attention_axes)
        ):
            raise ValueError(
                f"{where}: argument `attention_axes` must be an int, a tuple of ints or None. "
                f"Received: attention_axes={attention_axes!r}"
            )
        self.attention_axes: tuple[int, ...] | None = (
            None if attention_axes is None else tuple(attention_axes)
        )
        if flash_attention not in (None, True, False):
            raise ValueError(
                f"{where}: argument `flash_attention` must be None or a bool. "
                f"Received: flash_attention={flash_attention!r}"
            )
        self.flash_attention = flash_attention
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

    # --- build ---------------------------------------------------------------------------
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
                f"{type(self).__name__}.build needs `query_shape` and `value_shape`. "
                f"Received: query_shape={query_shape}, value_shape={value_shape}"
            )
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        common = _common.sublayer_kwargs(self)
        bias = self.use_bias

        def projection(name: str, shape: tuple[Any, ...], heads_dim: int) -> EinsumDense:
            equation, bias_axes, rank = projection_equation(len(shape) - 1, 1, 2)
            layer = EinsumDense(
                equation,
                output_shape=(*([None] * (rank - 3)), self.num_heads, heads_dim),
                bias_axes=bias_axes if bias else None,
                name=name,
                **common,
            )
            layer._build(shape)
            return layer

        self.query_dense = projection("query", query_shape, self.key_dim)
        self.key_dense = projection("key", key_shape, self.key_dim)
        if self.use_gate:  # created here so the weights list in Keras 3's order
            self._gate_dense = projection("gate", query_shape, self.value_dim)
        self.value_dense = projection("value", value_shape, self.value_dim)
        rank = len(query_shape) + 1
        axes = self.attention_axes
        if axes is None:
            axes = tuple(range(1, rank - 2))
        self._resolved_axes = tuple(a % rank if a < 0 else a for a in axes)
        for a in self._resolved_axes:
            if not 0 < a < rank - 2:
                raise ValueError(
                    f"{type(self).__name__}: argument `attention_axes` must name axes between "
                    f"the batch and feature axes of inputs of rank {len(query_shape)}. "
                    f"Received: attention_axes={self.attention_axes}"
                )
        self._dot_product_equation, self._combine_equation, scores_rank = attention_equations(
            rank, self._resolved_axes
        )
        norm_axes = list(range(scores_rank - len(self._resolved_axes), scores_rank))
        self._softmax = Softmax(axis=norm_axes, dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self.dtype_policy)
        out_dims = self.partial_output_shape or (query_shape[-1],)
        if out_dims[-1] is None:
            raise ValueError(
                f"{type(self).__name__}: the query's last axis must be known to size the output."
                f" Received: query_shape={query_shape}"
            )
        equation, bias_axes, out_rank = projection_equation(
            len(query_shape) - 1, 2, len(out_dims)
        )
        self.output_dense = EinsumDense(
            equation,
            output_shape=(*([None] * (out_rank - 1 - len(out_dims))), *out_dims),
            bias_axes=bias_axes if bias else None,
            name="attention_output",
            **common,
        )
        self.output_dense._build((*query_shape[:-1], self.num_heads, self.value_dim))
        self.built = True

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "num_heads": self.num_heads,
                "key_dim": self.key_dim,
                "value_dim": self.value_dim,
                "dropout": self.dropout,
                "use_bias": self.use_bias,
                "output_shape": (
                    None if self.partial_output_shape is None else list(self.partial_output_shape)
                ),
                "attention_axes": (
                    None if self.attention_axes is None else list(self.attention_axes)
                ),
                "sliding_window": self.sliding_window,
                "flash_attention": self.flash_attention,
                "use_gate": self.use_gate,
                "seed": self.seed,
            }
        )
        config.update(_common.weight_config(self))
        return config


__all__ = ["MultiHeadAttention"]
