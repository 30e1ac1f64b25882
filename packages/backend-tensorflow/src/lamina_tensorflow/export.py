"""SavedModel export on tensorflow (`ExportOps`): endpoints are traced as they are.

Lamina's TensorFlow layers hold `tf.Variable`s and are TensorFlow trackables, so
`lamina.export` wraps an endpoint in `tf.function` directly; nothing is converted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def traces_natively() -> bool:
    return True


def convert(*args: Any, **kwargs: Any) -> Callable[..., Any]:
    """Never asked for (`traces_natively` is True): there is nothing to convert."""
    raise TypeError(
        "The tensorflow backend traces endpoints natively with tf.function; it has no "
        "conversion step (`traces_natively()` is True)."
    )
