"""``lamina.optimizers.legacy``: the TF-Keras 2 optimizer names, which Keras 3 dropped.

Constructing one raises an ImportError that names the current replacement, as Keras 3
does, so old code fails with a clear message rather than a missing name.
"""

from __future__ import annotations

from typing import Any


class _LegacyOptimizer:
    """Raise on construction, pointing at ``lamina.optimizers.<same name>``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        raise ImportError(
            f"`lamina.optimizers.legacy.{name}` is not supported: legacy (TF-Keras 2) "
            f"optimizers do not exist in Keras 3. Use `lamina.optimizers.{name}` instead."
        )


class Adagrad(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.Adagrad`."""


class Adam(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.Adam`."""


class Ftrl(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.Ftrl`."""


class Optimizer(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.Optimizer`."""


class RMSprop(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.RMSprop`."""


class SGD(_LegacyOptimizer):
    """Removed; use `lamina.optimizers.SGD`."""


__all__ = ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"]
