"""`ModelCheckpoint`: save the model (or its weights) during `fit`."""

from __future__ import annotations

import os
import warnings
from typing import Any

from lamina.callbacks._monitor import check_mode, scalar
from lamina.callbacks.callback import Callback
from lamina.distribution.engine import is_process_zero, saving_joins_every_process

_MODEL_SUFFIXES = (".lamina", ".keras")
_WEIGHTS_SUFFIX = ".weights.h5"


class ModelCheckpoint(Callback):
    """Saves the model or its weights every epoch or every `save_freq` batches.

    Args:
        filepath: where to save; may hold ``{epoch}``, ``{batch}`` and log keys as
            format fields (``"ckpt-{epoch:02d}-{val_loss:.2f}.lamina"``). Must end in
            ``.weights.h5`` with `save_weights_only`, else in ``.lamina`` or ``.keras``.
        monitor: the log key `save_best_only` compares.
        verbose: 1 prints a line for each save.
        save_best_only: save only when `monitor` improves on the best value so far.
        save_weights_only: call `model.save_weights` instead of `model.save`.
        mode: "min", "max" or "auto" ("max" when the monitor name holds "acc" or starts
            with "fmeasure", else "min").
        save_freq: "epoch", or an int: save every that many batches.
        initial_value_threshold: the value the monitor must first beat (best-only).

    Raises:
        ValueError: bad `filepath` suffix, `mode` or `save_freq`.
    """

    # Runs on every process of a job, which all compute the same logs: process 0 alone
    # prints and writes, the others join the save only where split weights need them.

    def __init__(
        self,
        filepath: Any,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        initial_value_threshold: float | None = None,
    ) -> None:
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        mode = check_mode("ModelCheckpoint", mode)
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                "Argument `save_freq` must be 'epoch' or a positive int (batches). "
                f"Received: save_freq={save_freq!r}"
            )
        self.save_freq = save_freq
        if save_weights_only and not self.filepath.endswith(_WEIGHTS_SUFFIX):
            raise ValueError(
                "With `save_weights_only=True`, argument `filepath` must end in "
                f"'{_WEIGHTS_SUFFIX}'. Received: filepath={self.filepath!r}"
            )
        if not save_weights_only and not self.filepath.endswith(_MODEL_SUFFIXES):
            raise ValueError(
                "Argument `filepath` must end in '.lamina' or '.keras' (a whole-model "
                "archive), or pass `save_weights_only=True` with a '.weights.h5' path. "
                f"Received: filepath={self.filepath!r}"
            )
        if mode == "auto":
            mode = "max" if "acc" in monitor or monitor.startswith("fmeasure") else "min"
        self.mode = mode
        if initial_value_threshold is not None:
            self.best = float(initial_value_threshold)
        else:
            self.best = float("inf") if mode == "min" else float("-inf")
        self._current_epoch = 0
        self._last_batch_seen = 0
        self._batches_seen_since_last_saving = 0

    def _improved(self, current: float) -> bool:
        return current < self.best if self.mode == "min" else current > self.best

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch: int) -> bool:
        if self.save_freq == "epoch":
            return False
        # A batch index that does not grow means a new epoch started.
        added = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _save_model(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> None:
        writer = is_process_zero()
        if not writer and not saving_joins_every_process():
            return
        verbose = self.verbose if writer else 0
        logs = dict(logs or {})
        filepath = self._get_file_path(epoch, batch, logs)
        if self.save_best_only:
            current = scalar(logs.get(self.monitor))
            if current is None:
                warnings.warn(
                    f"Can save best model only with {self.monitor} available (a scalar), "
                    f"skipping. Available: {','.join(logs)}",
                    stacklevel=2,
                )
                return
            if not self._improved(current):
                if verbose > 0:
                    print(
                        f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                        f"{self.best:.5f}"
                    )
                return
            if verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                    f"{current:.5f}, saving model to {filepath}"
                )
            self.best = current
        elif verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
        directory = os.path.dirname(filepath)
        if directory and writer:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)

    def _get_file_path(self, epoch: int, batch: int | None, logs: dict[str, Any]) -> str:
        """`filepath` with ``{epoch}`` (from 1), ``{batch}`` (from 1) and log keys filled."""
        fields = dict(logs)
        fields["epoch"] = epoch + 1
        if batch is not None and "batch" not in logs:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as e:
            raise KeyError(
                f'Failed to format the ModelCheckpoint filepath "{self.filepath}": no value '
                f"for field {e}. Available: {sorted(fields)}"
            ) from e
