"""`SwapEMAWeights`: evaluate (and optionally checkpoint) with the optimizer's EMA weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.callbacks.callback import Callback


class SwapEMAWeights(Callback):
    """Swaps the model's weights with the optimizer's exponential moving averages.

    The averages go into the model for evaluation and prediction and are swapped back
    afterwards, so training continues on the raw weights. With `swap_on_epoch`, they are
    also in the model from each epoch end to the next epoch start, so callbacks placed
    after this one (`ModelCheckpoint`) save the averaged weights.

    Needs an optimizer created with ``use_ema=True``.

    Args:
        swap_on_epoch: also swap at epoch ends (and back at epoch starts).
    """

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _pairs(self) -> list[tuple[Any, Any]]:
        model = self.model
        optimizer = getattr(model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # loss scaling wrapper
        averages = getattr(optimizer, "_model_variables_moving_average", None) or getattr(
            optimizer, "_ema", None
        )
        if not averages:
            raise ValueError(
                "SwapEMAWeights needs an optimizer that keeps moving averages: create it "
                "with `use_ema=True` (and train at least one step). Received: "
                f"use_ema={getattr(optimizer, 'use_ema', None)!r}"
            )
        tracked = getattr(optimizer, "_trainable_variables", None) or model.trainable_variables
        return list(zip(tracked, averages))

    def _swap(self) -> None:
        for variable, average in self._pairs():
            current = np.array(variable.numpy())
            variable.assign(average.numpy())
            average.assign(current)
        self._ema_weights_in_model = not self._ema_weights_in_model

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap()

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._ema_weights_in_model:
            self._swap()

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._ema_weights_in_model and not self.swap_on_epoch:
            self._swap()

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._ema_weights_in_model:
            self._swap()

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._ema_weights_in_model and not self.swap_on_epoch:
            self._swap()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._ema_weights_in_model and not self.swap_on_epoch:
            self._swap()
