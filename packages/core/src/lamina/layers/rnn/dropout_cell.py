"""`DropoutRNNCell`: one dropout mask per sequence for the cells that take `dropout`.

A recurrent layer must drop the same input features (and the same recurrent units) at every
step of a sequence, or the noise compounds over time. The layer draws the masks once,
before its loop, with `prepare_dropout_masks`, and clears them after; inside the loop the
cell reads them. Drawing before the loop also keeps the loop body free of random state,
which `lax.scan` and `tf.while_loop` require. A cell called on its own (outside a layer)
draws fresh masks at each call.
"""

from __future__ import annotations

from typing import Any

from lamina import ops, random


class DropoutRNNCell:
    """Mixin for cells with `dropout`, `recurrent_dropout` and a `seed_generator`."""

    dropout: float = 0.0
    recurrent_dropout: float = 0.0
    seed_generator: Any = None

    def _mask(self, kind: str, like: Any, rate: float) -> Any:
        cached = self.__dict__.get(kind)
        if cached is not None:
            return cached
        return random.dropout(ops.ones_like(like), rate=rate, seed=self.seed_generator)

    def get_dropout_mask(self, step_input: Any) -> Any:
        """The input dropout mask (scaled by ``1 / (1 - dropout)``) for this sequence."""
        return self._mask("_dropout_mask", step_input, self.dropout)

    def get_recurrent_dropout_mask(self, step_state: Any) -> Any:
        """The recurrent dropout mask for this sequence, shaped like the first state."""
        return self._mask("_recurrent_dropout_mask", step_state, self.recurrent_dropout)

    def prepare_dropout_masks(self, step_input: Any, step_state: Any) -> None:
        """Draw this sequence's masks now; the cell uses them until `reset_dropout_masks`."""
        if 0.0 < self.dropout < 1.0:
            object.__setattr__(self, "_dropout_mask", self.get_dropout_mask(step_input))
        if 0.0 < self.recurrent_dropout < 1.0:
            mask = self.get_recurrent_dropout_mask(step_state)
            object.__setattr__(self, "_recurrent_dropout_mask", mask)

    def reset_dropout_masks(self) -> None:
        """Forget the sequence's masks (the next call draws new ones)."""
        object.__setattr__(self, "_dropout_mask", None)
        object.__setattr__(self, "_recurrent_dropout_mask", None)

    def reset_dropout_mask(self) -> None:
        """Keras 3 name: forget the input dropout mask."""
        object.__setattr__(self, "_dropout_mask", None)

    def reset_recurrent_dropout_mask(self) -> None:
        """Keras 3 name: forget the recurrent dropout mask."""
        object.__setattr__(self, "_recurrent_dropout_mask", None)
