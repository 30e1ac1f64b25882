"""`Callback`: the hooks `fit`, `evaluate` and `predict` call as they run.

A callback sees the model and the run's parameters (``verbose``, ``epochs``, ``steps``)
and reacts to epoch and batch boundaries. Subclasses override only the hooks they need;
every hook here does nothing.
"""

from __future__ import annotations

from typing import Any


class Callback:
    """Base class for objects that react to training, evaluation and prediction events.

    Attributes:
        params: the run's parameters (``verbose``, ``epochs``, ``steps``), set by `fit`.
        model: the model being run, set by `fit` / `evaluate` / `predict`.

    Example:
        >>> class PrintLoss(lamina.callbacks.Callback):
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         print(epoch, logs["loss"])
    """

    process_zero_only: bool = False
    """True for callbacks that write files or print (checkpoints, logs, the progress bar):
    in a job of several processes only process 0 runs them."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._model: Any = None

    def set_params(self, params: dict[str, Any]) -> None:
        """Record the run's parameters (``verbose``, ``epochs``, ``steps``)."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Record the model the callback acts on."""
        self._model = model

    @property
    def model(self) -> Any:
        """The model; state a backend keeps outside the variables during a loop (JAX) is
        written back first, so that what a callback reads or assigns is current."""
        model = self._model
        sync = getattr(model, "_sync_state", None)
        if sync is not None:
            sync()
        return model

    @model.setter
    def model(self, model: Any) -> None:
        self.set_model(model)

    # --- batch hooks (legacy aliases first: the train hooks delegate to them) -------------
    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Alias of `on_train_batch_begin` kept for older callbacks."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Alias of `on_train_batch_end` kept for older callbacks."""

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Before a training batch (`batch` counts from 0 in each epoch)."""
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """After a training batch; `logs` holds the running metric results."""
        self.on_batch_end(batch, logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Before an evaluation batch."""

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """After an evaluation batch; `logs` holds the running metric results."""

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Before a prediction batch."""

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """After a prediction batch; `logs["outputs"]` holds the batch's outputs."""

    # --- epoch hooks ----------------------------------------------------------------------
    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """At the start of an epoch (`epoch` counts from 0)."""

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """At the end of an epoch; `logs` holds the epoch's metrics (``val_*`` included)."""

    # --- whole-run hooks ------------------------------------------------------------------
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """At the start of `fit`."""

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """At the end of `fit`; `logs` holds the last epoch's metrics."""

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """At the start of `evaluate` (and of validation)."""

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """At the end of `evaluate`; `logs` holds the final metrics."""

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """At the start of `predict`."""

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """At the end of `predict`."""

    # --- resuming -------------------------------------------------------------------------
    def _resume_epoch(self) -> int | None:
        """The epoch `fit` should start from (`BackupAndRestore` overrides), else None."""
        return None
