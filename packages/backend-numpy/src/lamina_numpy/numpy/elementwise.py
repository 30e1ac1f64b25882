"""NumPy: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.kit import Tensor


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy warns on log(0), 0/0, overflow...; the other backends return inf/NaN silently."""

    def wrapper(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args))

    wrapper.__name__ = fn.__name__
    return wrapper


add = _quiet(np.add)
subtract = _quiet(np.subtract)
multiply = _quiet(np.multiply)
divide = _quiet(np.divide)
floor_divide = _quiet(np.floor_divide)
mod = _quiet(np.mod)
fmod = _quiet(np.fmod)
power = _quiet(np.power)
maximum = _quiet(np.maximum)
minimum = _quiet(np.minimum)
gcd = _quiet(np.gcd)
negative = _quiet(np.negative)
absolute = _quiet(np.absolute)
ceil = _quiet(np.ceil)
floor = _quiet(np.floor)
trunc = _quiet(np.trunc)
sqrt = _quiet(np.sqrt)
sin = _quiet(np.sin)
cos = _quiet(np.cos)
tan = _quiet(np.tan)
arcsin = _quiet(np.arcsin)
arccos = _quiet(np.arccos)
arctan = _quiet(np.arctan)
sinh = _quiet(np.sinh)
cosh = _quiet(np.cosh)
tanh = _quiet(np.tanh)
arcsinh = _quiet(np.arcsinh)
arccosh = _quiet(np.arccosh)
arctanh = _quiet(np.arctanh)
exp = _quiet(np.exp)
expm1 = _quiet(np.expm1)
log = _quiet(np.log)
log1p = _quiet(np.log1p)
arctan2 = _quiet(np.arctan2)
hypot = _quiet(np.hypot)
logaddexp = _quiet(np.logaddexp)
nextafter = _quiet(np.nextafter)
equal = _quiet(np.equal)
not_equal = _quiet(np.not_equal)
less = _quiet(np.less)
less_equal = _quiet(np.less_equal)
greater = _quiet(np.greater)
greater_equal = _quiet(np.greater_equal)
isfinite = _quiet(np.isfinite)
isinf = _quiet(np.isinf)
isnan = _quiet(np.isnan)
signbit = _quiet(np.signbit)
logical_and = _quiet(np.logical_and)
logical_or = _quiet(np.logical_or)
logical_not = _quiet(np.logical_not)
bitwise_and = _quiet(np.bitwise_and)
bitwise_or = _quiet(np.bitwise_or)
bitwise_xor = _quiet(np.bitwise_xor)
bitwise_not = _quiet(np.bitwise_not)
bitwise_left_shift = _quiet(np.left_shift)
bitwise_right_shift = _quiet(np.right_shift)
real = _quiet(np.real)
imag = _quiet(np.imag)
conjugate = _quiet(np.conjugate)


def sign(x: Tensor) -> Tensor:
    return np.asarray(np.sign(x))


def round(x: Tensor, decimals: int) -> Tensor:
    with np.errstate(all="ignore"):
        return np.asarray(np.round(x, decimals))


def i0(x: Tensor) -> Tensor:
    import scipy.special

    # np.i0 has no float16/bfloat16 loop; scipy computes in float32 for those.
    if x.dtype.itemsize < 4:
        return np.asarray(scipy.special.i0(x.astype(np.float32)).astype(x.dtype))
    return np.asarray(scipy.special.i0(x))


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    return np.asarray(np.isin(x1, x2, assume_unique=assume_unique, invert=invert))
