"""The array namespace and the few helpers every module of this backend shares.

Everything computes with `array_api_strict`, which implements the Python array API standard
and nothing more: no float16, no einsum, no erf, no in-place scatter-add. What the standard
lacks is written here, or in the module that needs it, on the standard's own functions.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import array_api_strict as xp

from lamina.backend.kit import DType, Tensor, standardize_dtype

__all__ = [
    "ARRAY",
    "as_dtype",
    "const",
    "dtype_name",
    "index_grid",
    "is_float",
    "is_int",
    "last_writer",
    "moveaxis",
    "one_hot_rows",
    "pad_constant",
    "quiet",
    "scatter_rows",
    "xp",
]

ARRAY: type[Any] = type(xp.asarray(0))
"""The native tensor type (the standard names no public class for it)."""

_DTYPES: dict[str, Any] = {
    "bool": xp.bool,
    "int8": xp.int8,
    "int16": xp.int16,
    "int32": xp.int32,
    "int64": xp.int64,
    "uint8": xp.uint8,
    "uint16": xp.uint16,
    "uint32": xp.uint32,
    "uint64": xp.uint64,
    "float32": xp.float32,
    "float64": xp.float64,
    "complex64": xp.complex64,
    "complex128": xp.complex128,
}
_NAMES = {v: k for k, v in _DTYPES.items()}
_DTYPE_TYPE = type(xp.float32)


def as_dtype(dtype: Any) -> Any:
    """The array API dtype for a Lamina dtype name (or anything `standardize_dtype` reads)."""
    if isinstance(dtype, _DTYPE_TYPE):
        return dtype
    name = standardize_dtype(dtype)
    if name not in _DTYPES:
        raise TypeError(
            "The array_api backend holds only the dtypes the array API standard defines "
            f"({', '.join(_DTYPES)}). Received: dtype={dtype!r}"
        )
    return _DTYPES[name]


def dtype_name(x: Tensor) -> DType:
    """The Lamina name of `x`'s dtype."""
    return _NAMES[x.dtype]


def is_float(x: Tensor) -> bool:
    return bool(xp.isdtype(x.dtype, "real floating"))


def is_int(x: Tensor) -> bool:
    return bool(xp.isdtype(x.dtype, "integral"))


def const(x: Tensor, value: Any) -> Tensor:
    """`value` as a 0-d array of `x`'s dtype (the standard refuses mixed-kind operands)."""
    return xp.asarray(value, dtype=x.dtype)


def moveaxis(x: Tensor, source: int, destination: int) -> Tensor:
    return xp.moveaxis(x, source, destination)


def pad_constant(x: Tensor, pad_width: Any, value: Any = 0) -> Tensor:
    """Constant padding ``((before, after), ...)`` per axis, by concatenating filled blocks."""
    if isinstance(value, ARRAY):
        fill = value
    elif x.dtype == xp.bool:
        fill = xp.asarray(bool(value))
    elif xp.isdtype(x.dtype, "integral"):
        fill = xp.asarray(int(value), dtype=x.dtype)
    else:
        fill = xp.asarray(value, dtype=x.dtype)
    for axis, (before, after) in enumerate(pad_width):
        if before == 0 and after == 0:
            continue
        parts = []
        for amount in (before, after):
            shape = list(x.shape)
            shape[axis] = amount
            parts.append(xp.broadcast_to(xp.astype(fill, x.dtype), tuple(shape)))
        x = xp.concat([parts[0], x, parts[1]], axis=axis)
    return x


def index_grid(n: int) -> Tensor:
    """``arange(n)`` as int64, the index dtype used throughout this backend."""
    return xp.arange(n, dtype=xp.int64)


P = ParamSpec("P")
R = TypeVar("R")


def quiet(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` without the RuntimeWarnings array-api-strict passes on for IEEE events.

    log(0), 0/0 and overflow give inf/NaN silently on every other backend; array-api-strict
    computes with NumPy underneath, which also warns.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*args, **kwargs)

    return wrapper


def one_hot_rows(index: Tensor, n: int, dtype: Any) -> Tensor:
    """``(n, m)`` matrix with a one at ``(index[j], j)``: scatter and segment ops as matmuls.

    The standard has no scatter-add; multiplying by this matrix sums the rows of `values`
    that share an index (out-of-range indices select nothing).
    """
    return xp.astype(index_grid(n)[:, None] == xp.astype(index, xp.int64)[None, :], dtype)


def scatter_rows(index: Tensor, values: Tensor, n: int) -> Tensor:
    """Rows of `values` ``(m, ...)`` summed into ``(n, ...)`` at the 1-D `index`."""
    m = values.shape[0]
    flat = xp.reshape(values, (m, -1))
    dtype = xp.int64 if values.dtype == xp.bool else values.dtype
    out = one_hot_rows(index, n, dtype) @ xp.astype(flat, dtype)
    out = xp.reshape(out, (n, *values.shape[1:]))
    return out != 0 if values.dtype == xp.bool else out


def last_writer(index: Tensor, n: int) -> Tensor:
    """For each of `n` slots, the position of the last entry of `index` naming it, or -1."""
    m = index.shape[0]
    if m == 0:
        return xp.full((n,), -1, dtype=xp.int64)
    hits = index_grid(n)[:, None] == xp.astype(index, xp.int64)[None, :]
    return xp.max(xp.where(hits, index_grid(m)[None, :], xp.asarray(-1, dtype=xp.int64)), axis=1)
