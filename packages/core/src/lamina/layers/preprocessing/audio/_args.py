"""Argument checks shared by the audio layers."""

from __future__ import annotations

import numbers
from typing import Any


def positive_int(layer: str, arg: str, value: Any) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) > 0:
        return int(value)
    raise ValueError(f"{layer}: argument `{arg}` must be a positive int. Received: {arg}={value!r}")


def number(layer: str, arg: str, value: Any, positive: bool = False) -> float:
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if is_number and (not positive or float(value) > 0):
        return float(value)
    what = "a positive number" if positive else "a number"
    raise ValueError(f"{layer}: argument `{arg}` must be {what}. Received: {arg}={value!r}")


def one_of(layer: str, arg: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if value in allowed:
        return value
    raise ValueError(
        f"{layer}: argument `{arg}` must be one of {allowed}. Received: {arg}={value!r}"
    )
