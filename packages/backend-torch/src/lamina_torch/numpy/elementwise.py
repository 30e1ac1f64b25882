"""torch: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import torch

from lamina.backend.kit import Tensor

__all__ = [
    "absolute", "add", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctan2", "arctanh", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "conjugate", "cos", "cosh",
    "deg2rad", "divide", "divide_no_nan", "equal", "exp", "exp2", "expm1", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "gcd", "greater", "greater_equal", "heaviside",
    "hypot", "i0", "imag", "isclose", "isfinite", "isin", "isinf", "isnan", "isneginf",
    "isposinf", "isreal", "lcm", "ldexp", "less", "less_equal", "log", "log10", "log1p",
    "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or",
    "logical_xor", "maximum", "minimum", "mod", "multiply", "nan_to_num", "negative",
    "nextafter", "not_equal", "power", "rad2deg", "real", "reciprocal", "round", "sign",
    "signbit", "sin", "sinc", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
]  # fmt: skip

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


def divide(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.true_divide(x1, x2)


def divide_no_nan(x1: Tensor, x2: Tensor) -> Tensor:
    zero = x2 == 0
    return torch.where(zero, torch.zeros_like(x1), x1 / torch.where(zero, 1, x2))


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
def fmax(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.fmax(x1, x2)


@_widen_unsigned
def fmin(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.fmin(x1, x2)


@_widen_unsigned
def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.gcd(x1, x2)


@_widen_unsigned
def lcm(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.lcm(x1, x2)


@_widen_unsigned
def negative(x: Tensor) -> Tensor:
    return torch.neg(x)


def absolute(x: Tensor) -> Tensor:
    return torch.abs(x)


@_widen_unsigned
def sign(x: Tensor) -> Tensor:
    # torch.sign rejects complex; torch.sgn is x / |x| there.
    return torch.sgn(x) if x.is_complex() else torch.sign(x)


@_widen_unsigned
def square(x: Tensor) -> Tensor:
    return torch.square(x)


def reciprocal(x: Tensor) -> Tensor:
    return torch.reciprocal(x)


@_widen_unsigned
def clip(x: Tensor, x_min: Tensor | None, x_max: Tensor | None) -> Tensor:
    if x_min is not None:
        x = torch.maximum(x, x_min)
    if x_max is not None:
        x = torch.minimum(x, x_max)
    return x


def round(x: Tensor, decimals: int) -> Tensor:
    return torch.round(x, decimals=decimals)


def ceil(x: Tensor) -> Tensor:
    return torch.ceil(x)


def floor(x: Tensor) -> Tensor:
    return torch.floor(x)


def trunc(x: Tensor) -> Tensor:
    return torch.trunc(x)


def nan_to_num(x: Tensor, nan: float, posinf: float, neginf: float) -> Tensor:
    return torch.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def sqrt(x: Tensor) -> Tensor:
    return torch.sqrt(x)


def cbrt(x: Tensor) -> Tensor:
    # torch has no cbrt; the real cube root keeps the sign.
    return torch.sign(x) * torch.pow(torch.abs(x), 1.0 / 3.0)


def sin(x: Tensor) -> Tensor:
    return torch.sin(x)


def cos(x: Tensor) -> Tensor:
    return torch.cos(x)


def tan(x: Tensor) -> Tensor:
    return torch.tan(x)


def arcsin(x: Tensor) -> Tensor:
    return torch.asin(x)


def arccos(x: Tensor) -> Tensor:
    return torch.acos(x)


def arctan(x: Tensor) -> Tensor:
    return torch.atan(x)


def sinh(x: Tensor) -> Tensor:
    return torch.sinh(x)


def cosh(x: Tensor) -> Tensor:
    return torch.cosh(x)


def tanh(x: Tensor) -> Tensor:
    return torch.tanh(x)


def arcsinh(x: Tensor) -> Tensor:
    return torch.asinh(x)


def arccosh(x: Tensor) -> Tensor:
    return torch.acosh(x)


def arctanh(x: Tensor) -> Tensor:
    return torch.atanh(x)


def exp(x: Tensor) -> Tensor:
    return torch.exp(x)


def exp2(x: Tensor) -> Tensor:
    return torch.exp2(x)


def expm1(x: Tensor) -> Tensor:
    return torch.expm1(x)


def log(x: Tensor) -> Tensor:
    return torch.log(x)


def log10(x: Tensor) -> Tensor:
    return torch.log10(x)


def log1p(x: Tensor) -> Tensor:
    return torch.log1p(x)


def log2(x: Tensor) -> Tensor:
    return torch.log2(x)


def sinc(x: Tensor) -> Tensor:
    return torch.sinc(x)


def i0(x: Tensor) -> Tensor:
    return torch.i0(x)


def deg2rad(x: Tensor) -> Tensor:
    return torch.deg2rad(x)


def rad2deg(x: Tensor) -> Tensor:
    return torch.rad2deg(x)


def arctan2(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.atan2(x1, x2)


def hypot(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.hypot(x1, x2)


def logaddexp(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.logaddexp(x1, x2)


def logaddexp2(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.logaddexp2(x1, x2)


def heaviside(x1: Tensor, x2: Tensor) -> Tensor:
    # torch.heaviside maps NaN to 0; NumPy (and the other backends) keep NaN.
    return torch.where(torch.isnan(x1), x1, torch.heaviside(x1, x2))


def nextafter(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.nextafter(x1, x2)


def ldexp(x1: Tensor, x2: Tensor) -> Tensor:
    return x1 * torch.pow(torch.tensor(2, dtype=x1.dtype, device=x1.device), x2.to(x1.dtype))


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


def isclose(x1: Tensor, x2: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    return torch.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)


def isfinite(x: Tensor) -> Tensor:
    return torch.isfinite(x)


def isinf(x: Tensor) -> Tensor:
    return torch.isinf(x)


def isnan(x: Tensor) -> Tensor:
    return torch.isnan(x)


def isneginf(x: Tensor) -> Tensor:
    return torch.isneginf(x)


def isposinf(x: Tensor) -> Tensor:
    return torch.isposinf(x)


def signbit(x: Tensor) -> Tensor:
    return torch.signbit(x)


def isreal(x: Tensor) -> Tensor:
    return torch.isreal(x)


@_widen_unsigned
def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    if x1.is_complex() or x1.dtype == torch.bool:
        # torch.isin has no complex or bool kernel: compare every pair instead.
        found = (x1.reshape(-1, 1) == x2.reshape(1, -1)).any(dim=-1).reshape(x1.shape)
        return ~found if invert else found
    return torch.isin(x1, x2, assume_unique=assume_unique, invert=invert)


def logical_and(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.logical_and(x1, x2)


def logical_or(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.logical_or(x1, x2)


def logical_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.logical_xor(x1, x2)


def logical_not(x: Tensor) -> Tensor:
    return torch.logical_not(x)


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


def real(x: Tensor) -> Tensor:
    return torch.real(x)


def imag(x: Tensor) -> Tensor:
    # torch.imag rejects real tensors.
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def conjugate(x: Tensor) -> Tensor:
    # conj_physical, not conj: a lazily conjugated view cannot be read by .numpy().
    return torch.conj_physical(x)


def angle(x: Tensor) -> Tensor:
    if x.is_complex():
        return torch.angle(x)
    # torch.angle(-0.0) is 0; NumPy's atan2(0, x) gives pi there.
    return torch.atan2(torch.zeros_like(x), x)
