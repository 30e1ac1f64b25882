"""`ProgbarLogger`: prints a progress bar with the running metrics."""

from __future__ import annotations

from typing import Any

from lamina.callbacks.callback import Callback


class ProgbarLogger(Callback):
    """Prints a progress bar per epoch (`fit`) or per run (`evaluate`, `predict`).

    `fit`, `evaluate` and `predict` add one when ``verbose != 0``; its verbosity, epoch
    count and steps per epoch come from the run's parameters.
    """

    process_zero_only = True

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.progbar: Any = None
        self.target: int | None = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params: dict[str, Any]) -> None:
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = int(params.get("epochs", 1) or 1)
        self.target = params.get("steps")

    def _reset_progbar(self) -> None:
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self, logs: dict[str, Any]) -> None:
        if self.progbar is not None:
            return
        from lamina.utils.progbar import Progbar

        # Logs carry running results (metric states), never per-batch values to average.
        names = [k for k in logs if k != "outputs"]
        stateful = names + [f"val_{k}" for k in names if not k.startswith("val_")]
        self.progbar = Progbar(
            target=self.target, verbose=self.verbose, stateful_metrics=stateful, unit_name="step"
        )

    def _update(self, batch: int, logs: dict[str, Any] | None, finalize: bool) -> None:
        logs = {k: v for k, v in (logs or {}).items() if k != "outputs"}
        self._maybe_init_progbar(logs)
        if not finalize:
            self.seen = batch + 1
        elif self.target is None:
            self.target = self.seen
            self.progbar.target = self.seen
        self.progbar.update(self.seen, list(logs.items()), finalize=finalize)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._called_in_fit = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._called_in_fit = False

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._reset_progbar()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, logs, finalize=False)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(self.seen - 1, logs, finalize=True)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._reset_progbar()

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._update(batch, logs, finalize=False)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._update(self.seen - 1, logs, finalize=True)

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset_progbar()

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, None, finalize=False)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._update(self.seen - 1, None, finalize=True)
