"""`Attention` (Luong-style dot or concat scores) and `AdditiveAttention` (Bahdanau-style).

Both take ``[query, value]`` or ``[query, value, key]`` with no projections: the scores
compare the query with the key directly, and the output mixes the value's vectors.
"""

from __future__ import annotations

from typing import Any

from lamina import ops, random
from lamina.layers.attention import _common
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor

_SCORE_MODES = ("dot", "concat")


def _inputs(layer: str, inputs: Any) -> tuple[Any, Any, Any]:
    """``(query, value, key)`` from the ``[query, value(, key)]`` list, checked."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
        raise ValueError(
            f"{layer}: the inputs must be a list [query, value] or [query, value, key]. "
            f"Received: {type(inputs).__name__} of length "
            f"{len(inputs) if isinstance(inputs, (list, tuple)) else 'n/a'}"
        )
    query, value = inputs[0], inputs[1]
    return query, value, inputs[2] if len(inputs) == 3 else value


def _masks(layer: str, mask: Any) -> tuple[Any, Any]:
    if mask is None:
        return None, None
    if not isinstance(mask, (list, tuple)) or len(mask) not in (2, 3):
        raise ValueError(
            f"{layer}: argument `mask` must be a list [query_mask, value_mask] (or with a "
            f"key mask, which is ignored). Received: mask={mask!r}"
        )
    return mask[0], mask[1]


class Attention(Layer):
    """Dot-product attention between a query and a key, mixing the value's vectors.

    Args:
        use_scale: learn a scalar that multiplies the scores.
        score_mode: ``"dot"`` (``query . key``) or ``"concat"``
            (``sum(tanh(query + key))``, weighted by a learned scalar).
        dropout: the dropout rate on the attention probabilities.
        seed: seed of the dropout.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: ``[query (batch, Tq, dim), value (batch, Tv, dim)]`` and optionally
            ``key (batch, Tv, dim)`` (default the value).
        mask: ``[query_mask (batch, Tq), value_mask (batch, Tv)]``; by default the masks
            attached to the inputs.
        training: whether dropout is active.
        return_attention_scores: also return the ``(batch, Tq, Tv)`` probabilities.
        use_causal_mask: hide the values after each query position.

    Example:
        >>> query = np.ones((2, 3, 8), "float32")
        >>> value = np.ones((2, 5, 8), "float32")
        >>> context = lamina.layers.Attention()([query, value])
        >>> tuple(context.shape)
        (2, 3, 8)
    """

    def __init__(
        self,
        use_scale: bool = False,
        score_mode: str = "dot",
        dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        if score_mode not in _SCORE_MODES:
            raise ValueError(
                f"{name}: argument `score_mode` must be one of {list(_SCORE_MODES)}. "
                f"Received: score_mode={score_mode!r}"
            )
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = _args.rate_in_unit(name, dropout, arg="dropout")
        self.seed = seed
        if self.dropout > 0:
            self.seed_generator = random.SeedGenerator(seed)
        self.supports_masking = True
        self.scale: Any = None
        self.concat_score_weight: Any = None
        self._scores_requested = False

    def build(self, input_shape: Any = None) -> None:
        _inputs(type(self).__name__, input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones"
            )
        self.built = True

    def _scores(self, query: Any, key: Any) -> Any:
        """``(batch, Tq, Tv)`` unnormalized scores."""
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.swapaxes(key, -1, -2))
            return scores if self.scale is None else ops.multiply(scores, self.scale.value)
        pairs = ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3))
        if self.scale is not None:
            pairs = ops.multiply(pairs, self.scale.value)
        summed = ops.sum(ops.tanh(pairs), axis=-1)
        return ops.multiply(summed, self.concat_score_weight.value)

    def _probabilities(self, scores: Any, keep: Any, training: Any) -> Any:
        if keep is not None:
            big = 65504.0 if dtypes.dtype_of(scores) == "float16" else 1.0e9
            hidden = ops.cast(ops.logical_not(keep), dtypes.dtype_of(scores))
            scores = ops.subtract(scores, ops.multiply(hidden, big))
        probs = ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            probs = random.dropout(probs, self.dropout, seed=self.seed_generator)
        return probs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        object.__setattr__(self, "_scores_requested", bool(kwargs.get("return_attention_scores")))
        return super().__call__(*args, **kwargs)

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: bool | None = None,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        name = type(self).__name__
        query, value, key = _inputs(name, inputs)
        query_mask, value_mask = _masks(name, mask)
        scores = self._scores(query, key)
        keep = None
        if value_mask is not None:
            keep = ops.expand_dims(ops.cast(value_mask, "bool"), -2)
        if use_causal_mask:
            causal = _common.causal_mask(ops.shape(scores)[-2], ops.shape(scores)[-1])
            keep = causal if keep is None else ops.logical_and(keep, causal)
        probs = self._probabilities(scores, keep, training)
        result = ops.matmul(probs, value)
        if query_mask is not None:
            q = ops.expand_dims(ops.cast(query_mask, dtypes.dtype_of(result)), -1)
            result = ops.multiply(result, q)
        if return_attention_scores:
            return result, probs
        return result

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        query_mask = _masks(type(self).__name__, previous_mask)[0]
        if self._scores_requested:
            return (query_mask, None)
        return query_mask

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        query, value, _ = _inputs(type(self).__name__, input_shape)
        return (*tuple(query)[:-1], tuple(value)[-1])

    def compute_output_spec(
        self, inputs: Any, *args: Any, return_attention_scores: bool = False, **kwargs: Any
    ) -> Any:
        query, value, key = _inputs(type(self).__name__, inputs)
        dtype = self.compute_dtype
        out = SymbolicTensor((*query.shape[:-1], value.shape[-1]), dtype=dtype)
        if not return_attention_scores:
            return out
        return out, SymbolicTensor((*query.shape[:-1], key.shape[-2]), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "use_scale": self.use_scale,
                "score_mode": self.score_mode,
                "dropout": self.dropout,
                "seed": self.seed,
            }
        )
        return config


class AdditiveAttention(Attention):
    """Additive (Bahdanau) attention: scores ``sum(scale * tanh(query + key))``.

    Args:
        use_scale: learn one scale per feature (else the scale is 1).
        dropout: the dropout rate on the attention probabilities.
        **kwargs: `Attention`'s other arguments (`seed`) and base `Layer` arguments.

    Call arguments are those of `Attention`.

    Example:
        >>> query = np.ones((2, 3, 8), "float32")
        >>> value = np.ones((2, 5, 8), "float32")
        >>> context = lamina.layers.AdditiveAttention()([query, value])
        >>> tuple(context.shape)
        (2, 3, 8)
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        kwargs.pop("score_mode", None)
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape: Any = None) -> None:
        query, _, _ = _inputs(type(self).__name__, input_shape)
        dim = tuple(query)[-1]
        if self.use_scale:
            if dim is None:
                raise ValueError(
                    "AdditiveAttention: the query's last axis must be known to size `scale`. "
                    f"Received: input_shape={input_shape}"
                )
            self.scale = self.add_weight(
                name="scale", shape=(int(dim),), initializer="glorot_uniform"
            )
        self.built = True

    def _scores(self, query: Any, key: Any) -> Any:
        pairs = ops.tanh(ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3)))
        if self.scale is not None:
            pairs = ops.multiply(pairs, self.scale.value)
        return ops.sum(pairs, axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["score_mode"]
        return config
