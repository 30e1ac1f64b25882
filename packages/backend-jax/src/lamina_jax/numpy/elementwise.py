"""JAX: element-wise math, comparisons, logic and bit operations."""

from __future__ import annotations

import jax.numpy as jnp

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


def add(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.add(x1, x2)


def subtract(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.subtract(x1, x2)


def multiply(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.multiply(x1, x2)


def divide(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.divide(x1, x2)


def divide_no_nan(x1: Tensor, x2: Tensor) -> Tensor:
    safe = jnp.where(x2 == 0, jnp.ones_like(x2), x2)
    return jnp.where(x2 == 0, jnp.zeros_like(x1), x1 / safe)


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


def fmax(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.fmax(x1, x2)


def fmin(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.fmin(x1, x2)


def gcd(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.gcd(x1, x2)


def lcm(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.lcm(x1, x2)


def negative(x: Tensor) -> Tensor:
    return jnp.negative(x)


def absolute(x: Tensor) -> Tensor:
    return jnp.absolute(x)


def sign(x: Tensor) -> Tensor:
    return jnp.sign(x)


def square(x: Tensor) -> Tensor:
    return jnp.square(x)


def reciprocal(x: Tensor) -> Tensor:
    return jnp.reciprocal(x)


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


def nan_to_num(x: Tensor, nan: float, posinf: float, neginf: float) -> Tensor:
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def sqrt(x: Tensor) -> Tensor:
    return jnp.sqrt(x)


def cbrt(x: Tensor) -> Tensor:
    return jnp.cbrt(x)


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


def exp2(x: Tensor) -> Tensor:
    return jnp.exp2(x)


def expm1(x: Tensor) -> Tensor:
    return jnp.expm1(x)


def log(x: Tensor) -> Tensor:
    return jnp.log(x)


def log10(x: Tensor) -> Tensor:
    return jnp.log10(x)


def log1p(x: Tensor) -> Tensor:
    return jnp.log1p(x)


def log2(x: Tensor) -> Tensor:
    return jnp.log2(x)


def sinc(x: Tensor) -> Tensor:
    return jnp.sinc(x)


def i0(x: Tensor) -> Tensor:
    return jnp.i0(x)


def deg2rad(x: Tensor) -> Tensor:
    return jnp.deg2rad(x)


def rad2deg(x: Tensor) -> Tensor:
    return jnp.rad2deg(x)


def arctan2(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.arctan2(x1, x2)


def hypot(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.hypot(x1, x2)


def logaddexp(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logaddexp(x1, x2)


def logaddexp2(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logaddexp2(x1, x2)


def heaviside(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.heaviside(x1, x2)


def nextafter(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.nextafter(x1, x2)


def ldexp(x1: Tensor, x2: Tensor) -> Tensor:
    return x1 * jnp.power(jnp.asarray(2, x1.dtype), x2.astype(x1.dtype))


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


def isclose(x1: Tensor, x2: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    return jnp.isclose(x1, x2, rtol=rtol, atol=atol, equal_nan=equal_nan)


def isfinite(x: Tensor) -> Tensor:
    return jnp.isfinite(x)


def isinf(x: Tensor) -> Tensor:
    return jnp.isinf(x)


def isnan(x: Tensor) -> Tensor:
    return jnp.isnan(x)


def isneginf(x: Tensor) -> Tensor:
    return jnp.isneginf(x)


def isposinf(x: Tensor) -> Tensor:
    return jnp.isposinf(x)


def signbit(x: Tensor) -> Tensor:
    return jnp.signbit(x)


def isreal(x: Tensor) -> Tensor:
    return jnp.isreal(x)


def isin(x1: Tensor, x2: Tensor, assume_unique: bool, invert: bool) -> Tensor:
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


def logical_and(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logical_and(x1, x2)


def logical_or(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logical_or(x1, x2)


def logical_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.logical_xor(x1, x2)


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


def angle(x: Tensor) -> Tensor:
    return jnp.angle(x)
