"""Callbacks that change the optimizer's learning rate: a schedule, or on a plateau."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np

from lamina.callbacks._monitor import get_learning_rate, scalar, set_learning_rate
from lamina.callbacks.callback import Callback


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of every epoch from `schedule`.

    Args:
        schedule: ``schedule(epoch, lr) -> new lr`` (or ``schedule(epoch)``); `epoch`
            counts from 0 and `lr` is the current rate.
        verbose: 1 prints each new rate.

    Raises:
        TypeError: `schedule` is not callable.
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise TypeError(
                "Argument `schedule` must be callable as schedule(epoch, lr). "
                f"Received: schedule={schedule!r}"
            )
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        model = self.model
        current = get_learning_rate(model, "LearningRateScheduler")
        try:
            new = self.schedule(epoch, current)
        except TypeError:  # a one-argument schedule
            new = self.schedule(epoch)
        if isinstance(new, np.ndarray) and new.ndim == 0:
            new = new.item()
        if isinstance(new, bool) or not isinstance(new, (Real, np.floating, np.integer)):
            raise ValueError(
                "The `schedule` of LearningRateScheduler must return a float. "
                f"Received: schedule({epoch}) -> {new!r}"
            )
        set_learning_rate(model, float(new))
        if self.verbose > 0:
            print(
                f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                f"{float(new)}."
            )

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = get_learning_rate(self.model, "LearningRateScheduler")


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when `monitor` stops improving.

    Args:
        monitor: the log key to watch.
        factor: the multiplier applied to the rate (in (0, 1)).
        patience: epochs without improvement before reducing.
        verbose: 1 prints each reduction.
        mode: "min", "max" or "auto" ("max" when the monitor name holds "acc").
        min_delta: the smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.

    Raises:
        ValueError: `factor` is not in (0, 1), or `patience`/`cooldown` is negative.
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if "epsilon" in kwargs:  # the old name of `min_delta`
            min_delta = kwargs.pop("epsilon")
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments for ReduceLROnPlateau: {kwargs}")
        if not 0.0 < float(factor) < 1.0:
            raise ValueError(
                f"Argument `factor` must be in (0, 1). Received: factor={factor!r}"
            )
        for arg, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"Argument `{arg}` must be a non-negative int. Received: {arg}={value!r}"
                )
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"Learning rate reduction mode {mode!r} is unknown, falling back to 'auto'.",
                stacklevel=2,
            )
            mode = "auto"
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.min_delta = float(min_delta)
        self.cooldown = cooldown
        self.min_lr = float(min_lr)
        self.wait = 0
        self.cooldown_counter = 0
        self.best = 0.0
        self._reset()

    def _minimizing(self) -> bool:
        return self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor)

    def _reset(self) -> None:
        self.best = float("inf") if self._minimizing() else float("-inf")
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current: float) -> bool:
        if self._minimizing():
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def in_cooldown(self) -> bool:
        """Whether a recent reduction still holds the counter at zero."""
        return self.cooldown_counter > 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = {} if logs is None else logs
        model = self.model
        logs["learning_rate"] = get_learning_rate(model, "ReduceLROnPlateau")
        current = scalar(logs.get(self.monitor))
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is "
                f"not available. Available metrics are: {','.join(logs)}",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
            return
        if self.in_cooldown():
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        old = logs["learning_rate"]
        if old > float(np.float32(self.min_lr)):
            new = max(old * self.factor, self.min_lr)
            set_learning_rate(model, new)
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
            self.cooldown_counter = self.cooldown
            self.wait = 0
