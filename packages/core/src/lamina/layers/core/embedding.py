"""`Embedding`: integer ids to dense vectors (rows of a trainable table)."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.core.lora import LoraLayer
from lamina.ops import dtypes


class Embedding(LoraLayer):
    """Look up rows of an ``(input_dim, output_dim)`` table for integer ids.

    Args:
        input_dim: the vocabulary size (ids are in ``[0, input_dim)``).
        output_dim: the size of each embedding vector.
        embeddings_initializer: initializer of the table.
        embeddings_regularizer: penalty on the table.
        embeddings_constraint: projection applied to the table after each update.
        mask_zero: whether id 0 is padding: the layer then outputs a mask ``ids != 0`` for
            the layers after it (so `input_dim` should count the padding id).
        weights: optional initial value ``[table]``.
        lora_rank: when set, LoRA is enabled at build time with this rank.
        lora_alpha: LoRA scale numerator.
        **kwargs: base `Layer` arguments.

    Example:
        >>> vectors = lamina.layers.Embedding(1000, 64)(np.array([[4, 20, 0]]))
    """

    _lora_target = "embeddings"

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        weights: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        **kwargs: Any,
    ) -> None:
        input_length = kwargs.pop("input_length", None)
        del input_length  # Keras 2 argument: the sequence length is taken from the inputs.
        super().__init__(**kwargs)
        self.input_dim = _args.positive_int("Embedding", "input_dim", input_dim)
        self.output_dim = _args.positive_int("Embedding", "output_dim", output_dim)
        self.embeddings_initializer = _args.get_initializer(embeddings_initializer)
        self.embeddings_regularizer = _args.get_regularizer(embeddings_regularizer)
        self.embeddings_constraint = _args.get_constraint(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.autocast = False
        self._init_lora(lora_rank, lora_alpha)
        if weights is not None:
            table = np.asarray(weights[0] if isinstance(weights, (list, tuple)) else weights)
            if table.shape != (self.input_dim, self.output_dim):
                raise ValueError(
                    f"Embedding: argument `weights` must hold one array of shape "
                    f"{(self.input_dim, self.output_dim)}. Received: shape {table.shape}"
                )
            self.build()
            self._embeddings.assign(table)

    def build(self, input_shape: Any = None) -> None:
        if self.built:
            return
        self._embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
            name="embeddings",
        )
        self.built = True
        self._build_lora()

    @property
    def embeddings(self) -> Any:
        """The table in use (with the LoRA update once enabled)."""
        if not self.built:
            raise AttributeError(
                f"Embedding layer {self.name!r} is not built: it has no embeddings."
            )
        return self._effective_weight() if self.lora_enabled else self._embeddings

    def call(self, inputs: Any) -> Any:
        if dtypes.dtype_of(inputs) not in ("int32", "int64"):
            inputs = ops.cast(inputs, "int32")
        outputs = ops.take(self._effective_weight(), inputs, axis=0)
        return ops.cast(outputs, self.compute_dtype)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (*tuple(input_shape), self.output_dim)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("weights", None)
        config.update(
            {
                "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                "embeddings_initializer": _args.serialize_initializer(
                    self.embeddings_initializer
                ),
                "embeddings_regularizer": _args.serialize_regularizer(
                    self.embeddings_regularizer
                ),
                "activity_regularizer": _args.serialize_regularizer(self.activity_regularizer),
                "embeddings_constraint": _args.serialize_constraint(self.embeddings_constraint),
                "mask_zero": self.mask_zero,
            }
        )
        config.update(self._lora_config())
        return config
