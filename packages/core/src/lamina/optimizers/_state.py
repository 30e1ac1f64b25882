"""Helpers shared by optimizers: conditional updates, gradient clipping, argument checks.

Branching on a tensor value must trace under `jax.jit` and `tf.function`, so a step that
may or may not happen (gradient accumulation, a skipped step on overflow) is computed
inside a nested `StatelessScope` and then selected with `ops.where`: no Python `if` on a
tensor, and the same code runs eagerly on NumPy and PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lamina import ops
from lamina.variables.scopes import StatelessScope
from lamina.variables.variable import Variable


def conditional_update(pred: Any, fn: Callable[[], None], variables: Sequence[Variable]) -> None:
    """Run `fn` (which assigns some of `variables`) and keep its effect only where `pred`.

    Args:
        pred: a scalar boolean tensor.
        fn: a function that updates variables with `assign`.
        variables: every variable `fn` may assign.
    """
    mapping = [(v, v.value) for v in variables]
    with StatelessScope(state_mapping=mapping) as scope:
        before = [scope.get_current_value(v) for v in variables]
        fn()
    for v, old in zip(variables, before):
        new = scope.get_current_value(v)
        if new is not old:
            v.assign(ops.where(pred, new, old))


def all_finite(values: Sequence[Any]) -> Any:
    """A scalar boolean tensor: every element of every value is finite."""
    out = ops.convert_to_tensor(True)
    for value in values:
        out = ops.logical_and(out, ops.all(ops.isfinite(value)))
    return out


def clip_by_norm(value: Any, clip_norm: float) -> Any:
    """`value` scaled down so its L2 norm is at most `clip_norm` (zeros stay zeros)."""
    sq = ops.sum(ops.square(value))
    nonzero = ops.greater(sq, 0.0)
    norm = ops.where(nonzero, ops.sqrt(ops.where(nonzero, sq, 1.0)), sq)
    return ops.divide(ops.multiply(value, clip_norm), ops.maximum(norm, clip_norm))


def clip_by_global_norm(values: Sequence[Any], clip_norm: float) -> list[Any]:
    """`values` scaled together so the norm of their concatenation is at most `clip_norm`."""
    total = None
    for value in values:
        sq = ops.sum(ops.square(ops.cast(value, "float32")))
        total = sq if total is None else ops.add(total, sq)
    if total is None:
        return []
    scale = ops.divide(clip_norm, ops.maximum(ops.sqrt(total), clip_norm))
    return [ops.multiply(v, ops.cast(scale, v.dtype)) for v in values]


def check_float(
    where: str,
    arg: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    allow_none: bool = False,
    low_open: bool = False,
) -> Any:
    """`value` if it is a real number in range (or None when allowed), else a ValueError."""
    if value is None and allow_none:
        return None
    expected = "a number"
    if low is not None and high is not None:
        expected = f"a number in {'(' if low_open else '['}{low}, {high}]"
    elif low is not None:
        expected = f"a number {'>' if low_open else '>='} {low}"
    bad = isinstance(value, bool) or not isinstance(value, (int, float)) or value != value
    if not bad and low is not None:
        bad = value < low or (low_open and value == low)
    if not bad and high is not None:
        bad = value > high
    if bad:
        raise ValueError(
            f"`{where}`: argument `{arg}` must be {expected}"
            f"{' or None' if allow_none else ''}. Received: {arg}={value!r}"
        )
    return value


def check_bool(where: str, arg: str, value: Any) -> bool:
    """`value` if it is a bool, else a TypeError."""
    if not isinstance(value, bool):
        raise TypeError(f"`{where}`: argument `{arg}` must be a bool. Received: {arg}={value!r}")
    return value
