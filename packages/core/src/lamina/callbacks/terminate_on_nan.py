"""`TerminateOnNaN`: stop training as soon as the loss is NaN or infinite."""

from __future__ import annotations

from typing import Any

from lamina.callbacks._monitor import is_finite, scalar
from lamina.callbacks.callback import Callback


class TerminateOnNaN(Callback):
    """Stops `fit` after the first batch whose loss is NaN or infinite.

    Args:
        raise_error: raise a `RuntimeError` instead of stopping quietly.
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        loss = scalar((logs or {}).get("loss"))
        if loss is None or is_finite(loss):
            return
        if self.raise_error:
            raise RuntimeError(f"Batch {batch}: invalid loss {loss}, terminating training.")
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True
