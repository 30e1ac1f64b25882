"""JAX: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.kit import Tensor

# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
add = jnp.add
subtract = jnp.subtract
multiply = jnp.multiply
divide = jnp.divide
floor_divide = jnp.floor_divide
mod = jnp.mod
fmod = jnp.fmod
power = jnp.power
maximum = jnp.maximum
minimum = jnp.minimum
gcd = jnp.gcd
negative = jnp.negative
absolute = jnp.absolute
sign = jnp.sign


round = jnp.round
ceil = jnp.ceil
floor = jnp.floor
trunc = jnp.trunc
sqrt = jnp.sqrt
sin = jnp.sin
cos = jnp.cos
tan = jnp.tan
arcsin = jnp.arcsin
arccos = jnp.arccos
arctan = jnp.arctan
sinh = jnp.sinh
cosh = jnp.cosh
tanh = jnp.tanh
arcsinh = jnp.arcsinh
arccosh = jnp.arccosh
arctanh = jnp.arctanh
exp = jnp.exp
expm1 = jnp.expm1
log = jnp.log
log1p = jnp.log1p
i0 = jnp.i0
arctan2 = jnp.arctan2
hypot = jnp.hypot
logaddexp = jnp.logaddexp
nextafter = jnp.nextafter
equal = jnp.equal
not_equal = jnp.not_equal
less = jnp.less
less_equal = jnp.less_equal
greater = jnp.greater
greater_equal = jnp.greater_equal
isfinite = jnp.isfinite
isinf = jnp.isinf
isnan = jnp.isnan
signbit = jnp.signbit


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


logical_and = jnp.logical_and
logical_or = jnp.logical_or
logical_not = jnp.logical_not
bitwise_and = jnp.bitwise_and
bitwise_or = jnp.bitwise_or
bitwise_xor = jnp.bitwise_xor
bitwise_not = jnp.bitwise_not
bitwise_left_shift = jnp.left_shift
bitwise_right_shift = jnp.right_shift
real = jnp.real
imag = jnp.imag
conjugate = jnp.conjugate
