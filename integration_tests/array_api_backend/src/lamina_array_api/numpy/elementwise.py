"""array API: element-wise math, comparisons, logic and bit operations.

Most ops are the standard's own functions under NumPy's names; the rest (fmod, gcd, i0,
heaviside...) are written on them.
"""

from __future__ import annotations

import math

from lamina.backend.kit import Tensor
from lamina_array_api._xp import const, is_int, quiet, xp

__all__ = [
    "absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "conjugate", "cos", "cosh",
    "divide", "equal", "exp", "expm1", "floor", "floor_divide", "fmod", "gcd", "greater",
    "greater_equal", "hypot", "i0", "imag", "isfinite", "isin", "isinf", "isnan",
    "less", "less_equal", "log", "log1p", "logaddexp", "logical_and", "logical_not",
    "logical_or", "maximum", "minimum", "mod", "multiply", "negative", "nextafter",
    "not_equal", "power", "real", "round", "sign", "signbit", "sin", "sinh", "sqrt",
    "subtract", "tan", "tanh", "trunc",
]  # fmt: skip

subtract = quiet(xp.subtract)
divide = quiet(xp.divide)
floor_divide = quiet(xp.floor_divide)
mod = quiet(xp.remainder)
power = quiet(xp.pow)
negative = quiet(xp.negative)
absolute = quiet(xp.abs)
ceil = quiet(xp.ceil)
floor = quiet(xp.floor)
trunc = quiet(xp.trunc)
sqrt = quiet(xp.sqrt)
sin = quiet(xp.sin)
cos = quiet(xp.cos)
tan = quiet(xp.tan)
arcsin = quiet(xp.asin)
arccos = quiet(xp.acos)
arctan = quiet(xp.atan)
sinh = quiet(xp.sinh)
cosh = quiet(xp.cosh)
tanh = quiet(xp.tanh)
arcsinh = quiet(xp.asinh)
arccosh = quiet(xp.acosh)
arctanh = quiet(xp.atanh)
exp = quiet(xp.exp)
expm1 = quiet(xp.expm1)
log = quiet(xp.log)
log1p = quiet(xp.log1p)
arctan2 = quiet(xp.atan2)
hypot = quiet(xp.hypot)
logaddexp = quiet(xp.logaddexp)
nextafter = quiet(xp.nextafter)
equal = quiet(xp.equal)
not_equal = quiet(xp.not_equal)
less = quiet(xp.less)
less_equal = quiet(xp.less_equal)
greater = quiet(xp.greater)
greater_equal = quiet(xp.greater_equal)
isfinite = quiet(xp.isfinite)
isinf = quiet(xp.isinf)
isnan = quiet(xp.isnan)
signbit = quiet(xp.signbit)
logical_and = quiet(xp.logical_and)
logical_or = quiet(xp.logical_or)
logical_not = quiet(xp.logical_not)
bitwise_and = quiet(xp.bitwise_and)
bitwise_or = quiet(xp.bitwise_or)
bitwise_xor = quiet(xp.bitwise_xor)
bitwise_not = quiet(xp.bitwise_invert)
bitwise_left_shift = quiet(xp.bitwise_left_shift)
bitwise_right_shift = quiet(xp.bitwise_right_shift)


def _complex(x: Tensor) -> bool:
    return bool(xp.isdtype(x.dtype, "complex floating"))


# The standard's arithmetic refuses bools; NumPy's reads + and max as "or", * and min as "and".
@quiet
def add(x1: Tensor, x2: Tensor) -> Tensor:
    return xp.logical_or(x1, x2) if x1.dtype == xp.bool else xp.add(x1, x2)


@quiet
def multiply(x1: Tensor, x2: Tensor) -> Tensor:
    return xp.logical_and(x1, x2) if x1.dtype == xp.bool else xp.multiply(x1, x2)


def maximum(x1: Tensor, x2: Tensor) -> Tensor:
    return xp.logical_or(x1, x2) if x1.dtype == xp.bool else xp.maximum(x1, x2)


def minimum(x1: Tensor, x2: Tensor) -> Tensor:
    return xp.logical_and(x1, x2) if x1.dtype == xp.bool else xp.minimum(x1, x2)


def sign(x: Tensor) -> Tensor:
    return xp.sign(x)


@quiet
def fmod(x1: Tensor, x2: Tensor) -> Tensor:
    # C's fmod keeps the dividend's sign; the standard's remainder takes the divisor's.
    r = xp.remainder(x1, x2)
    wrong = (r != 0) & ((r < 0) != (x1 < 0))
    return xp.where(wrong, r - x2, r)


def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    a, b = xp.broadcast_arrays(xp.abs(x1), xp.abs(x2))
    zero = const(a, 0)
    # Euclid's algorithm on whole arrays; finished entries carry b == 0 along.
    while bool(xp.any(b != zero)):
        safe = xp.where(b == zero, const(b, 1), b)
        a, b = xp.where(b == zero, a, b), xp.where(b == zero, zero, xp.remainder(a, safe))
    return a


@quiet
def i0(x: Tensor) -> Tensor:
    # Modified Bessel function of order 0: its power series below 30, the asymptotic
    # expansion above (both in float64, which the series needs for large arguments).
    a = xp.abs(xp.astype(x, xp.float64))
    small = xp.minimum(a, xp.asarray(30.0, dtype=xp.float64))
    q = small * small / 4
    term = xp.ones_like(q)
    total = xp.ones_like(q)
    for k in range(1, 80):
        term = term * q / float(k * k)
        total = total + term
    big = xp.maximum(a, xp.asarray(30.0, dtype=xp.float64))
    series = xp.ones_like(big)
    coef = xp.ones_like(big)
    for k in range(1, 12):
        coef = coef * float((2 * k - 1) ** 2) / (8.0 * k * big)
        series = series + coef
    asym = xp.exp(big) / xp.sqrt(2 * math.pi * big) * series
    return xp.astype(xp.where(a <= 30.0, total, asym), x.dtype)


def real(x: Tensor) -> Tensor:
    return xp.real(x) if _complex(x) else x


def imag(x: Tensor) -> Tensor:
    return xp.imag(x) if _complex(x) else xp.zeros_like(x)


def conjugate(x: Tensor) -> Tensor:
    return xp.conj(x) if _complex(x) else x


@quiet
def round(x: Tensor, decimals: int) -> Tensor:
    if decimals == 0:
        return xp.round(x)
    if is_int(x):
        if decimals > 0:
            return x
        scale = 10 ** (-decimals)
        wide = xp.astype(x, xp.float64)
        return xp.astype(xp.round(wide / scale) * scale, x.dtype)
    scale_f = const(x, 10.0**decimals)
    return xp.round(x * scale_f) / scale_f


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    flat = xp.reshape(x2, (-1,))
    if flat.shape[0] == 0:
        found = xp.zeros(x1.shape, dtype=xp.bool)
    else:
        found = xp.any(x1[..., None] == flat, axis=-1)
    return xp.logical_not(found) if invert else found
