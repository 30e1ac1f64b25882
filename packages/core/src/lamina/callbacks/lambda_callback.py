"""`LambdaCallback`: a callback made from plain functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.callbacks.callback import Callback

_HOOKS = frozenset(
    name for name in vars(Callback) if name.startswith("on_") and callable(vars(Callback)[name])
)


class LambdaCallback(Callback):
    """Runs the given functions at the matching hooks.

    Epoch functions take ``(epoch, logs)``, batch functions ``(batch, logs)`` and
    run-level ones ``(logs)``.

    Args:
        on_epoch_begin: functions for those hooks.
        on_epoch_end: functions for those hooks.
        on_train_begin: functions for those hooks.
        on_train_end: functions for those hooks.
        on_train_batch_begin: functions for those hooks.
        on_train_batch_end: functions for those hooks.
        **kwargs: functions for any other hook (``on_test_end=...``, ``on_batch_end=...``).

    Raises:
        ValueError: a keyword is not a hook name.
        TypeError: a value is not callable.
    """

    def __init__(
        self,
        on_epoch_begin: Callable[..., Any] | None = None,
        on_epoch_end: Callable[..., Any] | None = None,
        on_train_begin: Callable[..., Any] | None = None,
        on_train_end: Callable[..., Any] | None = None,
        on_train_batch_begin: Callable[..., Any] | None = None,
        on_train_batch_end: Callable[..., Any] | None = None,
        **kwargs: Callable[..., Any] | None,
    ) -> None:
        super().__init__()
        unknown = sorted(set(kwargs) - _HOOKS)
        if unknown:
            raise ValueError(
                f"LambdaCallback accepts hook names only ({', '.join(sorted(_HOOKS))}). "
                f"Received: {unknown}"
            )
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
            **kwargs,
        }
        for name, function in hooks.items():
            if function is None:
                continue
            if not callable(function):
                raise TypeError(
                    f"Argument `{name}` must be callable. Received: {name}={function!r}"
                )
            setattr(self, name, function)
