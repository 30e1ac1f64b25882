"""`History`: the per-epoch record of metrics that `fit` returns."""

from __future__ import annotations

from typing import Any

from lamina.callbacks.callback import Callback


class History(Callback):
    """Records every epoch's logs; `fit` adds one and returns it (also `model.history`).

    Attributes:
        epoch: the epoch indices seen, in order.
        history: ``{metric name: [value per epoch]}``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []
        if self._model is not None:
            self._model.history = self

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self._model is not None:
            self._model.history = self
