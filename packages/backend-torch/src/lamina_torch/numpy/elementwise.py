"""torch: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from lamina.backend.kit import Tensor

F = TypeVar("F", bound=Callable[..., Any])

# torch implements almost no kernels for uint16/32/64, so those compute in a wider signed
# type and are cast back (uint64 goes through int64: values >= 2**63 compare wrongly).
_WIDER = {torch.uint16: torch.int32, torch.uint32: torch.int64, torch.uint64: torch.int64}


def _widen_unsigned(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        dtype = None
        for a in args:
            if isinstance(a, torch.Tensor):
                dtype = a.dtype
                break
        wide = _WIDER.get(dtype) if dtype is not None else None
        if wide is None:
            return fn(*args)
        out = fn(*(a.to(wide) if isinstance(a, torch.Tensor) else a for a in args))
        return out.to(dtype) if out.dtype == wide else out

    return wrapper  # type: ignore[return-value]


@_widen_unsigned
def add(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.add(x1, x2)


@_widen_unsigned
def subtract(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.subtract(x1, x2)


@_widen_unsigned
def multiply(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.multiply(x1, x2)


# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
divide = torch.true_divide


@_widen_unsigned
def floor_divide(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.floor_divide(x1, x2)


@_widen_unsigned
def mod(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.remainder(x1, x2)


@_widen_unsigned
def fmod(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.fmod(x1, x2)


@_widen_unsigned
def power(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.pow(x1, x2)


@_widen_unsigned
def maximum(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.maximum(x1, x2)


@_widen_unsigned
def minimum(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.minimum(x1, x2)


@_widen_unsigned
def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.gcd(x1, x2)


@_widen_unsigned
def negative(x: Tensor) -> Tensor:
    return torch.neg(x)


absolute = torch.abs


@_widen_unsigned
def sign(x: Tensor) -> Tensor:
    # torch.sign rejects complex; torch.sgn is x / |x| there.
    return torch.sgn(x) if x.is_complex() else torch.sign(x)


def round(x: Tensor, decimals: int) -> Tensor:
    return torch.round(x, decimals=decimals)


ceil = torch.ceil
floor = torch.floor
trunc = torch.trunc
sqrt = torch.sqrt
sin = torch.sin
cos = torch.cos
tan = torch.tan
arcsin = torch.asin
arccos = torch.acos
arctan = torch.atan
sinh = torch.sinh
cosh = torch.cosh
tanh = torch.tanh
arcsinh = torch.asinh
arccosh = torch.acosh
arctanh = torch.atanh
exp = torch.exp
expm1 = torch.expm1
log = torch.log
log1p = torch.log1p
i0 = torch.i0
arctan2 = torch.atan2
hypot = torch.hypot
logaddexp = torch.logaddexp
nextafter = torch.nextafter


@_widen_unsigned
def equal(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.eq(x1, x2)


@_widen_unsigned
def not_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.ne(x1, x2)


@_widen_unsigned
def less(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.lt(x1, x2)


@_widen_unsigned
def less_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.le(x1, x2)


@_widen_unsigned
def greater(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.gt(x1, x2)


@_widen_unsigned
def greater_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.ge(x1, x2)


isfinite = torch.isfinite
isinf = torch.isinf
isnan = torch.isnan
signbit = torch.signbit


@_widen_unsigned
def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    if x1.is_complex() or x1.dtype == torch.bool:
        # torch.isin has no complex or bool kernel: compare every pair instead.
        found = (x1.reshape(-1, 1) == x2.reshape(1, -1)).any(dim=-1).reshape(x1.shape)
        return ~found if invert else found
    return torch.isin(x1, x2, assume_unique=assume_unique, invert=invert)


logical_and = torch.logical_and
logical_or = torch.logical_or
logical_not = torch.logical_not


@_widen_unsigned
def bitwise_and(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.bitwise_and(x1, x2)


@_widen_unsigned
def bitwise_or(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.bitwise_or(x1, x2)


@_widen_unsigned
def bitwise_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.bitwise_xor(x1, x2)


@_widen_unsigned
def bitwise_not(x: Tensor) -> Tensor:
    return torch.bitwise_not(x)


@_widen_unsigned
def bitwise_left_shift(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.bitwise_left_shift(x1, x2)


@_widen_unsigned
def bitwise_right_shift(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.bitwise_right_shift(x1, x2)


real = torch.real


def imag(x: Tensor) -> Tensor:
    # torch.imag rejects real tensors.
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


# conj_physical, not conj: a lazily conjugated view cannot be read by .numpy().
conjugate = torch.conj_physical
