"""What every op's eager path needs: the active backend, conversion and dtype promotion."""

from __future__ import annotations

from typing import Any

from lamina.backend.protocol import Backend
from lamina.backend.registry import _State, current
from lamina.ops import dtypes
from lamina.variables.variable import Variable


def backend() -> Backend:
    """The active backend (loaded on first use)."""
    active = _State.active
    return active if active is not None else current()


def to_tensor(x: Any, dtype: str | None = None) -> Any:
    """`x` as a native tensor of the active backend, cast to `dtype` when given.

    Python scalars and lists take Lamina's defaults (floatx for floats, int32 for ints)
    rather than NumPy's 64-bit ones.
    """
    b = backend()
    if isinstance(x, Variable):
        x = x.value
    if b.core.is_tensor(x):
        if dtype is None or dtypes.standardize_dtype(x.dtype) == dtype:
            return x  # already what was asked for: skip the conversion call
    elif dtype is None:
        dtype = dtypes.dtype_of(x)
    return b.core.convert_to_tensor(x, dtype)


def native(dtype: str, *xs: Any) -> bool:
    """Whether `to_tensor(x, dtype)` returns every `x` as it is.

    It depends only on each input's type and dtype, so ops memoize it beside their checks
    (`eager_memo`) and skip the conversion calls when it holds.
    """
    core = backend().core
    return all(
        not isinstance(x, Variable)
        and core.is_tensor(x)
        and dtypes.standardize_dtype(x.dtype) == dtype
        for x in xs
    )


def promote(op: str, *xs: Any, dtype: str | None = None) -> list[Any]:
    """Convert `xs` to tensors of their common dtype (or `dtype` when given).

    Raises:
        TypeError: the dtypes cannot be promoted together (e.g. string and float).
    """
    if dtype is None:
        try:
            dtype = dtypes.result_type(*(dtypes.promotion_key(x) for x in xs))
        except ValueError as e:
            raise TypeError(f"`{op}`: {e}") from None
    return [to_tensor(x, dtype) for x in xs]


def float_dtype_of(x: Any) -> str:
    """The dtype of `x` if it is a float, else the float it promotes to (floatx)."""
    d = dtypes.dtype_of(x)
    if d in dtypes.FLOATS:
        return d
    return dtypes.result_type(d, float)
