"""`EarlyStopping`: stop `fit` when a monitored metric stops improving."""

from __future__ import annotations

import warnings
from typing import Any

from lamina.callbacks._monitor import check_mode, metric_direction, scalar
from lamina.callbacks.callback import Callback


class EarlyStopping(Callback):
    """Stops training once `monitor` has not improved for `patience` epochs.

    Args:
        monitor: the log key to watch (e.g. "val_loss", "val_accuracy").
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints when training stops and when weights are restored.
        mode: "min", "max", or "auto" (from the metric: losses are minimised, metrics
            declare their direction).
        baseline: a value the metric must beat; until it does, epochs count as
            non-improving.
        restore_best_weights: at the end, set the weights from the best epoch (when
            training stopped early or not).
        start_from_epoch: epochs to let pass before watching (a warm-up).

    Raises:
        ValueError: bad `mode`, or a negative `patience` or `start_from_epoch`.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0.0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__()
        self.mode = check_mode("EarlyStopping", mode)
        for arg, value in (("patience", patience), ("start_from_epoch", start_from_epoch)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"Argument `{arg}` must be a non-negative int. Received: {arg}={value!r}"
                )
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(float(min_delta))
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.wait = 0
        self.stopped_epoch = 0
        self.best: float | None = None
        self.best_weights: list[Any] | None = None
        self.best_epoch = 0
        self._sign: float | None = None  # +1 when larger is better, -1 when smaller is

    def _resolve_sign(self) -> float:
        direction = self.mode if self.mode != "auto" else metric_direction(
            self._model, self.monitor
        )
        if direction is None:
            raise ValueError(
                f"EarlyStopping cannot tell whether `{self.monitor}` should be minimised or "
                "maximised. Pass `mode='min'` or `mode='max'`. "
                f"Received: monitor={self.monitor!r}, mode='auto'"
            )
        return 1.0 if direction == "max" else -1.0

    def _is_improvement(self, value: float, reference: float | None) -> bool:
        if reference is None:
            return True
        assert self._sign is not None
        return self._sign * (value - reference) > self.min_delta

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def get_monitor_value(self, logs: dict[str, Any] | None) -> float | None:
        """The monitored value from `logs` (None, with a warning, when it is missing)."""
        logs = logs or {}
        value = scalar(logs.get(self.monitor))
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(logs)}",
                stacklevel=2,
            )
        return value

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self._sign is None:
            self._sign = self._resolve_sign()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, float(self.baseline)):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)
