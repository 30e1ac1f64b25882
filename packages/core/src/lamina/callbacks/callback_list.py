"""`CallbackList`: one object that forwards every hook to a list of callbacks.

The training loops talk to a `CallbackList` only. It adds the `History` and
`ProgbarLogger` a run needs when the user did not pass them, hands every callback the
model and the run's parameters, and tells the loop which epoch to resume from.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lamina.callbacks.callback import Callback
from lamina.callbacks.history import History
from lamina.callbacks.progbar_logger import ProgbarLogger


def _overrides(callback: Callback, hook: str) -> bool:
    """Whether `callback` does anything in `hook` (skipped per batch when it does not)."""
    if hook in callback.__dict__:  # set on the instance (LambdaCallback)
        return True
    own = getattr(type(callback), hook, None)
    if own is not getattr(Callback, hook):
        return True
    if hook == "on_train_batch_begin":
        return _overrides(callback, "on_batch_begin")
    if hook == "on_train_batch_end":
        return _overrides(callback, "on_batch_end")
    return False


class CallbackList(Callback):
    """A container that calls each hook on every callback it holds, in order.

    Args:
        callbacks: a callback, a list (nested lists are flattened) or None.
        add_history: append a `History` unless one is among `callbacks`.
        add_progbar: append a `ProgbarLogger` unless one is among `callbacks`.
        model: the model handed to every callback.
        **params: the run's parameters (``verbose``, ``epochs``, ``steps``).

    Raises:
        TypeError: an entry of `callbacks` is not a `Callback`.
    """

    def __init__(
        self,
        callbacks: Any = None,
        add_history: bool = False,
        add_progbar: bool = False,
        model: Any = None,
        **params: Any,
    ) -> None:
        super().__init__()
        from lamina.distribution.engine import is_process_zero

        self._process_zero = is_process_zero()
        self.callbacks: list[Callback] = []
        for callback in _flatten(callbacks):
            self.append(callback)
        self._history: History | None = None
        self._progbar: ProgbarLogger | None = None
        for callback in self.callbacks:
            if isinstance(callback, History):
                self._history = callback
            elif isinstance(callback, ProgbarLogger):
                self._progbar = callback
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar and self._process_zero:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)
        self._batch_targets: dict[str, list[Callback]] = {}
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        """Add one callback at the end (or drop it, when it is `process_zero_only` and this
        is another process of a job).

        Raises:
            TypeError: `callback` is not a `Callback`.
        """
        if not isinstance(callback, Callback):
            raise TypeError(
                "Every entry of `callbacks` must be a `lamina.callbacks.Callback` instance. "
                f"Received: callback={callback!r} of type {type(callback).__name__}"
            )
        if callback.process_zero_only and not self._process_zero:
            return
        self.callbacks.append(callback)
        self._batch_targets = {}

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model: Any) -> None:
        self._model = model
        for callback in self.callbacks:
            callback.set_model(model)

    def initial_epoch_override(self) -> int | None:
        """The epoch to start `fit` from when a callback restored a backup, else None."""
        for callback in self.callbacks:
            epoch = callback._resume_epoch()
            if epoch is not None:
                return epoch
        return None

    def _targets(self, hook: str) -> list[Callback]:
        targets = self._batch_targets.get(hook)
        if targets is None:
            targets = [c for c in self.callbacks if _overrides(c, hook)]
            self._batch_targets[hook] = targets
        return targets

    def _call_batch(self, hook: str, batch: int, logs: dict[str, Any] | None) -> None:
        logs = {} if logs is None else logs
        for callback in self._targets(hook):
            getattr(callback, hook)(batch, logs)

    def _call(self, hook: str, *args: Any) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    # --- batch hooks ----------------------------------------------------------------------
    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_end", batch, logs)

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_predict_batch_end", batch, logs)

    # --- epoch and run hooks --------------------------------------------------------------
    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_begin", epoch, {} if logs is None else logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_end", epoch, {} if logs is None else logs)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_begin", {} if logs is None else logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_end", {} if logs is None else logs)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_test_begin", {} if logs is None else logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_test_end", {} if logs is None else logs)

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_predict_begin", {} if logs is None else logs)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_predict_end", {} if logs is None else logs)

    def __iter__(self) -> Any:
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)


def _flatten(callbacks: Any) -> list[Any]:
    if callbacks is None:
        return []
    if isinstance(callbacks, CallbackList):
        return list(callbacks.callbacks)
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, Iterable) and not isinstance(callbacks, (str, bytes, dict)):
        out: list[Any] = []
        for item in callbacks:
            out.extend(_flatten(item))
        return out
    raise TypeError(
        "Argument `callbacks` must be a `Callback`, a list of them or None. "
        f"Received: callbacks={callbacks!r}"
    )
