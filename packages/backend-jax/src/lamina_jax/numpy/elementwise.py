"""JAX: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import jax.numpy as jnp

from lamina.backend.kit import Tensor


def add(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.add(x1, x2)


def subtract(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.subtract(x1, x2)


def multiply(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.multiply(x1, x2)


def divide(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.divide(x1, x2)


def floor_divide(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.floor_divide(x1, x2)


def mod(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.mod(x1, x2)


def fmod(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.fmod(x1, x2)


def power(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.power(x1, x2)


def maximum(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.maximum(x1, x2)


def minimum(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.minimum(x1, x2)


def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.gcd(x1, x2)


def negative(x: Tensor) -> Tensor:
    return jnp.negative(x)


def absolute(x: Tensor) -> Tensor:
    return jnp.absolute(x)


def sign(x: Tensor) -> Tensor:
    return jnp.sign(x)


def clip(x: Tensor, x_min: Tensor | None, x_max: Tensor | None) -> Tensor:
    if x_min is not None:
        x = jnp.maximum(x, x_min)
    if x_max is not None:
        x = jnp.minimum(x, x_max)
    return x


def round(x: Tensor, decimals: int) -> Tensor:
    return jnp.round(x, decimals)


def ceil(x: Tensor) -> Tensor:
    return jnp.ceil(x)


def floor(x: Tensor) -> Tensor:
    return jnp.floor(x)


def trunc(x: Tensor) -> Tensor:
    return jnp.trunc(x)


def sqrt(x: Tensor) -> Tensor:
    return jnp.sqrt(x)


def sin(x: Tensor) -> Tensor:
    return jnp.sin(x)


def cos(x: Tensor) -> Tensor:
    return jnp.cos(x)


def tan(x: Tensor) -> Tensor:
    return jnp.tan(x)


def arcsin(x: Tensor) -> Tensor:
    return jnp.arcsin(x)


def arccos(x: Tensor) -> Tensor:
    return jnp.arccos(x)


def arctan(x: Tensor) -> Tensor:
    return jnp.arctan(x)


def sinh(x: Tensor) -> Tensor:
    return jnp.sinh(x)


def cosh(x: Tensor) -> Tensor:
    return jnp.cosh(x)


def tanh(x: Tensor) -> Tensor:
    return jnp.tanh(x)


def arcsinh(x: Tensor) -> Tensor:
    return jnp.arcsinh(x)


def arccosh(x: Tensor) -> Tensor:
    return jnp.arccosh(x)


def arctanh(x: Tensor) -> Tensor:
    return jnp.arctanh(x)


def exp(x: Tensor) -> Tensor:
    return jnp.exp(x)


def expm1(x: Tensor) -> Tensor:
    return jnp.expm1(x)


def log(x: Tensor) -> Tensor:
    return jnp.log(x)


def log1p(x: Tensor) -> Tensor:
    return jnp.log1p(x)


def i0(x: Tensor) -> Tensor:
    return jnp.i0(x)


def arctan2(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.arctan2(x1, x2)


def hypot(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.hypot(x1, x2)


def logaddexp(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logaddexp(x1, x2)


def nextafter(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.nextafter(x1, x2)


def equal(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.equal(x1, x2)


def not_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.not_equal(x1, x2)


def less(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.less(x1, x2)


def less_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.less_equal(x1, x2)


def greater(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.greater(x1, x2)


def greater_equal(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.greater_equal(x1, x2)


def isfinite(x: Tensor) -> Tensor:
    return jnp.isfinite(x)


def isinf(x: Tensor) -> Tensor:
    return jnp.isinf(x)


def isnan(x: Tensor) -> Tensor:
    return jnp.isnan(x)


def signbit(x: Tensor) -> Tensor:
    return jnp.signbit(x)


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


def logical_and(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logical_and(x1, x2)


def logical_or(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logical_or(x1, x2)


def logical_not(x: Tensor) -> Tensor:
    return jnp.logical_not(x)


def bitwise_and(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.bitwise_and(x1, x2)


def bitwise_or(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.bitwise_or(x1, x2)


def bitwise_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.bitwise_xor(x1, x2)


def bitwise_not(x: Tensor) -> Tensor:
    return jnp.bitwise_not(x)


def bitwise_left_shift(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.left_shift(x1, x2)


def bitwise_right_shift(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.right_shift(x1, x2)


def real(x: Tensor) -> Tensor:
    return jnp.real(x)


def imag(x: Tensor) -> Tensor:
    return jnp.imag(x)


def conjugate(x: Tensor) -> Tensor:
    return jnp.conjugate(x)
