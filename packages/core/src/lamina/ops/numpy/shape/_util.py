"""Argument normalization shared by the shape ops (no backend needed)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from lamina.ops import dtypes
from lamina.ops.eager_memo import memo
from lamina.ops.shapes import Shape, canonical_axis, static_shape

T = TypeVar("T")


def int_tuple(op: str, arg: str, value: Any) -> tuple[int, ...]:
    """`value` (an int or a sequence of ints) as a tuple of ints."""
    items = value if isinstance(value, (list, tuple)) else (value,)
    try:
        if any(isinstance(v, bool) for v in items):
            raise TypeError
        return tuple(operator.index(v) for v in items)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `{arg}` must be an int or a tuple of ints. Received: {arg}={value!r}"
        ) from None


def axes_tuple(op: str, axis: Any, ndim: int, arg: str = "axis") -> tuple[int, ...]:
    """`axis` (int or sequence) as canonical non-negative ints, order kept, no repeats."""
    out = tuple(canonical_axis(op, a, ndim, arg) for a in int_tuple(op, arg, axis))
    if len(set(out)) != len(out):
        raise ValueError(f"`{op}`: argument `{arg}` repeats an axis. Received: {arg}={axis!r}")
    return out


def size_of(shape: Shape) -> int | None:
    """The number of elements, or None when a dim is unknown."""
    return None if None in shape else math.prod(d for d in shape if d is not None)


def common_dtype(op: str, *xs: Any) -> str:
    """The promoted dtype of `xs` by the shared lattice (TypeError names the op)."""
    try:
        return dtypes.result_type(*(dtypes.promotion_key(x) for x in xs))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None


def int_index_dtype(op: str, arg: str, x: Any) -> str:
    """The dtype an integer index tensor is used in: int64 stays, other ints become int32."""
    dtype = dtypes.dtype_of(x)
    if dtype not in dtypes.INTS:
        raise TypeError(
            f"`{op}`: argument `{arg}` must be an integer tensor. Received: {arg}.dtype={dtype}"
        )
    # Python and NumPy indices become int32 (JAX has no int64 without x64); a backend
    # tensor that already holds 64-bit indices keeps them.
    wide = dtype in ("int64", "uint32", "uint64")
    from lamina.ops.dispatch import backend

    return "int64" if wide and backend().core.is_tensor(x) else "int32"


def same_dim(a: int | None, b: int | None) -> bool:
    """Whether two dims may be equal (unknown dims match anything)."""
    return a is None or b is None or a == b


def as_tensor(op: str, x: Any, dtype: str | None = None) -> Any:
    """`x` as a backend tensor; a value that cannot convert raises an error naming `op`."""
    from lamina.ops.dispatch import to_tensor

    try:
        return to_tensor(x, dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"`{op}`: cannot convert `x` to a tensor: {e}") from None


def planned(op: Any, x: Any, plan: Callable[[Shape], T]) -> tuple[Any, T]:
    """`x` as a tensor, and `plan` of its static shape (which raises on bad arguments).

    For an `x` that already is a tensor, the plan is worked out once per input signature
    and op arguments (`eager_memo`): a shape op's checks cost more than its kernel.
    """
    def check() -> tuple[T, bool]:
        tensor = as_tensor(op.op_name, x)
        return plan(static_shape(tensor)), tensor is x

    result, ready = memo(op, (x,), check)
    return (x if ready else as_tensor(op.op_name, x)), result
