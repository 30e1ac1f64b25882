"""TensorFlow: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import math
from collections.abc import Callable

import tensorflow as tf
import tensorflow.experimental.numpy as tnp

from lamina.backend.kit import Tensor

# Integer kernels TF lacks (unsigned negation, powers, gcd; small-int truncatemod) run in
# a wider signed type and cast back, which wraps as the narrow type would.
_WIDER = {
    tf.uint8: tf.int32,
    tf.uint16: tf.int32,
    tf.uint32: tf.int64,
    tf.uint64: tf.int64,
    tf.int8: tf.int32,
    tf.int16: tf.int32,
}


def _widened(fn: Callable[..., Tensor], *xs: Tensor) -> Tensor:
    wide = _WIDER.get(xs[0].dtype)
    if wide is None:
        return fn(*xs)
    return tf.cast(fn(*(tf.cast(x, wide) for x in xs)), xs[0].dtype)


_BITS = {tf.float16: tf.int16, tf.bfloat16: tf.int16, tf.float32: tf.int32, tf.float64: tf.int64}


def _const(value: float, like: Tensor) -> Tensor:
    return tf.constant(value, dtype=like.dtype)


def _is_bool(x: Tensor) -> bool:
    return bool(x.dtype == tf.bool)


def add(x1: Tensor, x2: Tensor) -> Tensor:
    # TF has no bool arithmetic; on bools + is OR and * is AND, as in NumPy.
    return tf.logical_or(x1, x2) if _is_bool(x1) else tf.add(x1, x2)


# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
subtract = tf.subtract


def multiply(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.logical_and(x1, x2) if _is_bool(x1) else tf.multiply(x1, x2)


divide = tf.divide
floor_divide = tf.math.floordiv
mod = tf.math.floormod


def fmod(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.dtype.is_unsigned:
        return tf.math.floormod(x1, x2)  # both signs are positive: the same remainder
    if x1.dtype in (tf.float16, tf.bfloat16):
        # TruncateMod has no half-precision CPU kernel; float32 holds them exactly.
        return tf.cast(tf.truncatemod(tf.cast(x1, tf.float32), tf.cast(x2, tf.float32)), x1.dtype)
    return _widened(tf.truncatemod, x1, x2)


def power(x1: Tensor, x2: Tensor) -> Tensor:
    return _widened(tf.pow, x1, x2)


def maximum(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.logical_or(x1, x2) if _is_bool(x1) else tf.maximum(x1, x2)


def minimum(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.logical_and(x1, x2) if _is_bool(x1) else tf.minimum(x1, x2)


def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.cast(_widened(tnp.gcd, x1, x2), x1.dtype)


def negative(x: Tensor) -> Tensor:
    return _widened(tf.negative, x) if x.dtype.is_unsigned else tf.negative(x)


absolute = tf.abs


def sign(x: Tensor) -> Tensor:
    return _widened(tf.sign, x) if x.dtype.is_unsigned else tf.sign(x)


def round(x: Tensor, decimals: int) -> Tensor:
    # tf.round rounds halves to even, like NumPy; decimals scale as NumPy does.
    if decimals == 0:
        return tf.round(x)
    if decimals > 0:
        factor = _const(10.0**decimals, x)
        return tf.round(x * factor) / factor
    factor = _const(10.0**-decimals, x)
    return tf.round(x / factor) * factor


ceil = tf.math.ceil
floor = tf.math.floor


def trunc(x: Tensor) -> Tensor:
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


sqrt = tf.sqrt
sin = tf.sin
cos = tf.cos
tan = tf.tan
arcsin = tf.asin
arccos = tf.acos
arctan = tf.atan
sinh = tf.sinh
cosh = tf.cosh
tanh = tf.tanh
arcsinh = tf.asinh
arccosh = tf.acosh
arctanh = tf.atanh
exp = tf.exp
expm1 = tf.math.expm1
log = tf.math.log
log1p = tf.math.log1p
i0 = tf.math.bessel_i0
arctan2 = tf.atan2


def hypot(x1: Tensor, x2: Tensor) -> Tensor:
    # Scale by the larger magnitude so the squares cannot overflow.
    a, b = tf.abs(x1), tf.abs(x2)
    big, small = tf.maximum(a, b), tf.minimum(a, b)
    safe = tf.where(tf.equal(big, 0), tf.ones_like(big), big)
    ratio = small / safe
    out = big * tf.sqrt(1 + ratio * ratio)
    return tf.where(tf.math.is_inf(a) | tf.math.is_inf(b), _const(math.inf, a), out)


def logaddexp(x1: Tensor, x2: Tensor) -> Tensor:
    # max + log1p(exp(-|x1 - x2|)); equal inputs (same-signed infinities) short-cut.
    big = tf.maximum(x1, x2)
    out = big + tf.math.log1p(tf.exp(-tf.abs(x1 - x2)))
    return tf.where(tf.equal(x1, x2), x1 + _const(math.log(2.0), x1), out)


def nextafter(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.dtype in (tf.float32, tf.float64):
        return tf.math.nextafter(x1, x2)
    # tf.math.nextafter has no half-precision kernel: step the bit pattern by one. The
    # bits are sign-magnitude, so +1 moves away from zero for either sign.
    bits_dtype = _BITS[x1.dtype]
    bits = tf.bitcast(x1, bits_dtype)
    away = tf.equal(x2 > x1, x1 > 0)
    stepped = tf.bitcast(tf.where(away, bits + 1, bits - 1), x1.dtype)
    tiny = tf.bitcast(tf.ones_like(bits), x1.dtype)
    from_zero = tf.where(x2 > 0, tiny, -tiny)
    out = tf.where(tf.equal(x1, 0), from_zero, stepped)
    out = tf.where(tf.equal(x1, x2), x2, out)
    return tf.where(tf.math.is_nan(x1) | tf.math.is_nan(x2), x1 + x2, out)


equal = tf.equal
not_equal = tf.not_equal


def _orderable(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    # TF cannot order bools; False < True as int8.
    if _is_bool(x1):
        return tf.cast(x1, tf.int8), tf.cast(x2, tf.int8)
    return x1, x2


def less(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.less(*_orderable(x1, x2))


def less_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.less_equal(*_orderable(x1, x2))


def greater(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.greater(*_orderable(x1, x2))


def greater_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.greater_equal(*_orderable(x1, x2))


def _parts(x: Tensor) -> tuple[Tensor, Tensor | None]:
    # tf.math.is_nan and friends have no complex kernels: test the parts.
    if x.dtype.is_complex:
        return tf.math.real(x), tf.math.imag(x)
    return x, None


def isfinite(x: Tensor) -> Tensor:
    re, im = _parts(x)
    out = tf.math.is_finite(re)
    return out if im is None else out & tf.math.is_finite(im)


def isinf(x: Tensor) -> Tensor:
    re, im = _parts(x)
    out = tf.math.is_inf(re)
    return out if im is None else out | tf.math.is_inf(im)


def isnan(x: Tensor) -> Tensor:
    re, im = _parts(x)
    out = tf.math.is_nan(re)
    return out if im is None else out | tf.math.is_nan(im)


def signbit(x: Tensor) -> Tensor:
    # The sign bit is the top bit: negative as a signed integer of the same width.
    return tf.bitcast(x, _BITS[x.dtype]) < 0


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    found = tf.reduce_any(tf.equal(tf.reshape(x1, (-1, 1)), tf.reshape(x2, (1, -1))), axis=-1)
    found = tf.reshape(found, tf.shape(x1))
    return tf.logical_not(found) if invert else found


logical_and = tf.logical_and
logical_or = tf.logical_or
logical_not = tf.logical_not


# tf.bitwise has no bool kernels; on bools the bit ops are the logical ones.
def bitwise_and(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.logical_and(x1, x2) if _is_bool(x1) else tf.bitwise.bitwise_and(x1, x2)


def bitwise_or(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.logical_or(x1, x2) if _is_bool(x1) else tf.bitwise.bitwise_or(x1, x2)


def bitwise_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return tf.math.logical_xor(x1, x2) if _is_bool(x1) else tf.bitwise.bitwise_xor(x1, x2)


def bitwise_not(x: Tensor) -> Tensor:
    return tf.logical_not(x) if _is_bool(x) else tf.bitwise.invert(x)


bitwise_left_shift = tf.bitwise.left_shift
bitwise_right_shift = tf.bitwise.right_shift
real = tf.math.real


def imag(x: Tensor) -> Tensor:
    return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


conjugate = tf.math.conj
