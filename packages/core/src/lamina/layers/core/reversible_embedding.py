"""`ReversibleEmbedding`: an embedding that also maps vectors back to vocabulary logits.

Language models tie the input embedding to the output projection; ``reverse=True`` runs
the projection, with the same table transposed (tied) or a separate one.
"""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.core.embedding import Embedding
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


class ReversibleEmbedding(Embedding):
    """`Embedding` whose ``call(x, reverse=True)`` gives ``x @ table.T`` logits.

    Args:
        input_dim: the vocabulary size.
        output_dim: the size of each embedding vector.
        tie_weights: reverse with the embedding table itself (else a separate
            ``(output_dim, input_dim)`` ``reverse_embeddings`` weight).
        embeddings_initializer: initializer of the table(s).
        embeddings_regularizer: penalty on the table(s).
        embeddings_constraint: projection applied to the table(s) after each update.
        mask_zero: whether id 0 is padding (see `Embedding`).
        reverse_dtype: the dtype the reverse projection computes in (e.g. ``"float32"``
            for stable logits under mixed precision); default the compute dtype.
        logit_soft_cap: if set, reverse logits become ``cap * tanh(logits / cap)``.
        **kwargs: `Embedding`'s other arguments and base `Layer` arguments.

    Example:
        >>> emb = lamina.layers.ReversibleEmbedding(1000, 64)
        >>> ids = np.array([[1, 2, 3]])
        >>> logits = emb(emb(ids), reverse=True)  # (batch, len, 1000)
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        tie_weights: bool = True,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        reverse_dtype: Any = None,
        logit_soft_cap: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        cap = logit_soft_cap
        if cap is not None and (
            isinstance(cap, bool) or not isinstance(cap, numbers.Real) or cap <= 0
        ):
            raise ValueError(
                "ReversibleEmbedding: argument `logit_soft_cap` must be a positive number or "
                f"None. Received: logit_soft_cap={cap!r}"
            )
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = None if reverse_dtype is None else dtypes.standardize_dtype(
            reverse_dtype
        )
        self.logit_soft_cap = None if cap is None else float(cap)
        self.reverse_embeddings: Any = None

    def build(self, input_shape: Any = None) -> None:
        if self.built:
            return
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
                regularizer=self.embeddings_regularizer,
                constraint=self.embeddings_constraint,
                name="reverse_embeddings",
            )
        self.built = True

    def call(self, inputs: Any, reverse: bool = False) -> Any:
        if not reverse:
            return super().call(inputs)
        if self.tie_weights:
            kernel = ops.transpose(self.embeddings)
        else:
            kernel = self.reverse_embeddings.value
        if self.reverse_dtype is not None:
            inputs = ops.cast(inputs, self.reverse_dtype)
            kernel = ops.cast(kernel, self.reverse_dtype)
        else:
            kernel = ops.cast(kernel, dtypes.dtype_of(inputs))
        logits = ops.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = ops.multiply(ops.tanh(ops.divide(logits, cap)), cap)
        return logits

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        if not self.mask_zero or dtypes.dtype_of(inputs) in dtypes.FLOATS:
            return None  # reverse calls take vectors, not ids: no padding id to find
        return ops.not_equal(inputs, 0)

    def compute_output_spec(self, inputs: Any, reverse: bool = False, **kwargs: Any) -> Any:
        if reverse:
            shape = (*tuple(inputs.shape)[:-1], self.input_dim)
            return SymbolicTensor(shape, dtype=self.reverse_dtype or self.compute_dtype)
        return SymbolicTensor(
            (*tuple(inputs.shape), self.output_dim), dtype=self.compute_dtype
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype,
                "logit_soft_cap": self.logit_soft_cap,
            }
        )
        return config
