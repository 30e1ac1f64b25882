"""Validation helpers shared by the activation, loss and normalization ops."""

from __future__ import annotations

import numbers
from typing import Any

from lamina.backend.config import SETTINGS
from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.dispatch import native, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.shapes import Shape, check_rank, static_shape
from lamina.ops.symbolic import SymbolicTensor

HALF_FLOATS = ("float16", "bfloat16")


def float_dtype(op: str, *xs: Any) -> str:
    """The float dtype `op` computes in: the promoted dtype of `xs`, ints and bools to floatx.

    Raises:
        TypeError: the dtypes do not promote, or are complex or string.
    """
    keys = [dtypes.promotion_key(x) for x in xs if x is not None]
    try:
        dtype = dtypes.result_type(*keys)
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None
    if dtype in dtypes.COMPLEXES or dtype == "string":
        raise TypeError(
            f"`{op}`: expects real-valued (bool, int or float) inputs. Received: dtype={dtype}"
        )
    return dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)


def number(op: str, arg: str, value: Any, minimum: float | None = None) -> float:
    """`value` as a float, checking it is a real number (and at least `minimum`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{op}`: argument `{arg}` must be a real number. Received: {arg}={value!r} "
            f"(of type {type(value).__name__})"
        )
    if minimum is not None and value < minimum:
        raise ValueError(
            f"`{op}`: argument `{arg}` must be >= {minimum}. Received: {arg}={value!r}"
        )
    return float(value)


def epsilon_or_default(op: str, epsilon: Any) -> float:
    """`epsilon`, or `lamina.config.epsilon()` when None."""
    return SETTINGS.epsilon if epsilon is None else number(op, "epsilon", epsilon, 0.0)


def same_shape(op: str, a: Shape, b: Shape, names: tuple[str, str]) -> Shape:
    """The common shape of `a` and `b`, which must match (None matches any dim)."""
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        raise ValueError(
            f"`{op}`: arguments `{names[0]}` and `{names[1]}` must have the same shape. "
            f"Received: {names[0]}.shape={a}, {names[1]}.shape={b}"
        )
    return tuple(x if x is not None else y for x, y in zip(a, b))


class Activation(Op):
    """An element-wise activation: the output has `x`'s shape and float dtype."""

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(static_shape(x), float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        dtype, ready = memo(self, (x,), lambda: self._compute_dtype(x))
        return self.compute(x if ready else to_tensor(x, dtype))

    def _compute_dtype(self, x: Any) -> tuple[str, bool]:
        dtype = float_dtype(self.op_name, x)
        return dtype, native(dtype, x)

    def compute(self, x: Any) -> Any:
        raise NotImplementedError


def ranked(op: str, x: Any, minimum: int = 1) -> Shape:
    """The static shape of `x`, checked to have rank >= `minimum`."""
    shape = static_shape(x)
    check_rank(op, shape, minimum)
    return shape
