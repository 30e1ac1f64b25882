"""Helpers shared by callbacks that watch a metric or change the learning rate."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_MODES = ("auto", "min", "max")


def check_mode(callback: str, mode: Any) -> str:
    """Validate a `mode` argument ("auto", "min" or "max").

    Raises:
        ValueError: `mode` is none of them.
    """
    if mode not in _MODES:
        raise ValueError(
            f"Argument `mode` of {callback} must be one of 'auto', 'min' or 'max'. "
            f"Received: mode={mode!r}"
        )
    return str(mode)


def metric_direction(model: Any, monitor: str) -> str | None:
    """"min" or "max" for `monitor` from the model's metrics, "min" for losses, else None.

    A metric declares whether larger is better through its ``_direction`` ("up"/"down").
    """
    name = monitor[4:] if monitor.startswith("val_") else monitor
    if name == "loss" or name.endswith("_loss"):
        return "min"
    for metric in _all_metrics(model):
        if getattr(metric, "name", None) != name:
            continue
        direction = getattr(metric, "_direction", None)
        if direction == "up":
            return "max"
        if direction == "down":
            return "min"
    return None


def _all_metrics(model: Any) -> list[Any]:
    if model is None:
        return []
    out: list[Any] = []
    stack = list(getattr(model, "metrics", []) or [])
    while stack:
        metric = stack.pop(0)
        out.append(metric)
        stack.extend(getattr(metric, "metrics", []) or [])  # compiled-metric containers
    return out


def scalar(value: Any) -> float | None:
    """`value` as a Python float when it is a scalar, else None (arrays are not compared)."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.ndim != 0 or not np.issubdtype(array.dtype, np.number):
        return None
    return float(array)


def get_learning_rate(model: Any, callback: str) -> float:
    """The optimizer's current learning rate as a float.

    Raises:
        ValueError: the model has no optimizer with a `learning_rate`, or it is a schedule.
    """
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "learning_rate"):
        raise ValueError(
            f"{callback} needs a compiled model whose optimizer has a `learning_rate`. "
            f"Received: optimizer={optimizer!r}"
        )
    value = optimizer.learning_rate
    if callable(value) and not hasattr(value, "numpy"):
        raise ValueError(
            f"{callback} cannot change a learning rate given by a schedule. "
            f"Received: learning_rate={value!r}"
        )
    return float(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


def set_learning_rate(model: Any, value: float) -> None:
    """Set the optimizer's learning rate (assigned in place when it is a variable)."""
    optimizer = model.optimizer
    current: Any = getattr(optimizer, "learning_rate", None)
    if hasattr(current, "assign"):
        current.assign(value)
    else:
        optimizer.learning_rate = value


def is_finite(value: float) -> bool:
    return not (math.isnan(value) or math.isinf(value))
