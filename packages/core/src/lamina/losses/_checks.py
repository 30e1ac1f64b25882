"""Argument checks shared by losses and metrics, so both raise the same messages.

Wrong types raise `TypeError`, wrong values `ValueError`; every message names the
argument, the value received and what was expected.
"""

from __future__ import annotations

import numbers
from typing import Any


def check_bool(where: str, arg: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"`{where}`: argument `{arg}` must be a bool. "
            f"Received: {arg}={value!r} (of type {type(value).__name__})"
        )
    return value


def check_number(
    where: str,
    arg: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """`value` as a float, checked to be a real number inside the given interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{where}`: argument `{arg}` must be a real number. "
            f"Received: {arg}={value!r} (of type {type(value).__name__})"
        )
    v = float(value)
    below = low is not None and (v <= low if open_low else v < low)
    above = high is not None and (v >= high if open_high else v > high)
    if below or above:
        left = "(" if open_low else "["
        right = ")" if open_high else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(
            f"`{where}`: argument `{arg}` must be in {left}{lo}, {hi}{right}. "
            f"Received: {arg}={value!r}"
        )
    return float(value)


def check_int(where: str, arg: str, value: Any, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"`{where}`: argument `{arg}` must be an int. "
            f"Received: {arg}={value!r} (of type {type(value).__name__})"
        )
    if low is not None and value < low:
        raise ValueError(
            f"`{where}`: argument `{arg}` must be an int >= {low}. Received: {arg}={value!r}"
        )
    return int(value)


def check_axis(where: str, value: Any, allow_none: bool = False) -> Any:
    """An int axis, or a tuple/list of ints (or None when `allow_none`)."""
    if value is None and allow_none:
        return None
    items = value if isinstance(value, (list, tuple)) else [value]
    if not items or any(
        isinstance(a, bool) or not isinstance(a, numbers.Integral) for a in items
    ):
        expected = "an int or a tuple of ints" + (" or None" if allow_none else "")
        raise TypeError(
            f"`{where}`: argument `axis` must be {expected}. "
            f"Received: axis={value!r} (of type {type(value).__name__})"
        )
    return tuple(int(a) for a in value) if isinstance(value, (list, tuple)) else int(value)


def check_name(where: str, name: Any) -> str | None:
    if name is not None and not isinstance(name, str):
        raise TypeError(
            f"`{where}`: argument `name` must be a string or None. "
            f"Received: name={name!r} (of type {type(name).__name__})"
        )
    return name
