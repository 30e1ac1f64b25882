"""Element-wise arithmetic: sums, products, quotients, powers, extrema and signs."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.numpy.elementwise._base import (
    FLOATS_AND_COMPLEXES,
    REALS,
    Binary,
    FloatOp,
    RealFloatOp,
    Unary,
    check_dtype,
    finish,
    to_float,
)

__all__ = [
    "abs",
    "absolute",
    "add",
    "divide",
    "divide_no_nan",
    "fabs",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "gcd",
    "lcm",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "power",
    "reciprocal",
    "sign",
    "square",
    "subtract",
    "true_divide",
]

_NUMBERS = dtypes.INTS + FLOATS_AND_COMPLEXES


def _bool_to_int(dtype: str) -> str:
    return "int32" if dtype == "bool" else dtype


class Add(Binary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.add(x1, x2)


def add(x1: Any, x2: Any) -> Any:
    """Add arguments element-wise, broadcasting and promoting their dtypes.

    Args:
        x1: first input tensor.
        x2: second input tensor.

    Returns:
        The element-wise sum.

    Example:
        >>> lamina.ops.add(np.array([1, 2]), 3)  # [4, 5], int32
    """
    return Add()(x1, x2)


class Subtract(Binary):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, _NUMBERS, "numeric (non-bool)")
        return dtype

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.subtract(x1, x2)


def subtract(x1: Any, x2: Any) -> Any:
    """Subtract `x2` from `x1` element-wise (bool inputs are rejected, as in NumPy).

    Example:
        >>> lamina.ops.subtract(np.array([3, 4]), 1)  # [2, 3]
    """
    return Subtract()(x1, x2)


class Multiply(Binary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.multiply(x1, x2)


def multiply(x1: Any, x2: Any) -> Any:
    """Multiply arguments element-wise.

    Example:
        >>> lamina.ops.multiply(np.array([1, 2]), 3)  # [3, 6]
    """
    return Multiply()(x1, x2)


class Divide(Binary):
    def input_dtype(self, dtype: str) -> str:
        return to_float(self.op_name, dtype)

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.divide(x1, x2)


def divide(x1: Any, x2: Any) -> Any:
    """True division element-wise; integer inputs give a float result.

    Example:
        >>> lamina.ops.divide(np.array([1, 2]), 2)  # [0.5, 1.], float32
    """
    return Divide()(x1, x2)


class TrueDivide(Divide):
    pass


def true_divide(x1: Any, x2: Any) -> Any:
    """Alias of `divide`: true division, integers give floats.

    Example:
        >>> lamina.ops.true_divide(np.array([3]), 2)  # [1.5]
    """
    return TrueDivide()(x1, x2)


class DivideNoNan(Divide):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "divide_no_nan")(x1, x2)


def divide_no_nan(x1: Any, x2: Any) -> Any:
    """Divide `x1` by `x2`, giving 0 wherever `x2` is 0 (instead of inf or NaN).

    Example:
        >>> lamina.ops.divide_no_nan(np.array([1.0, 2.0]), np.array([0.0, 4.0]))  # [0., .5]
    """
    return DivideNoNan()(x1, x2)


class _IntOrFloatBinary(Binary):
    """Real-only arithmetic where bools count as int32 (floor division, modulo, powers)."""

    allow_complex = False

    def input_dtype(self, dtype: str) -> str:
        if not self.allow_complex:
            check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return _bool_to_int(dtype)


class FloorDivide(_IntOrFloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.floor_divide(x1, x2)


def floor_divide(x1: Any, x2: Any) -> Any:
    """The largest integer not above ``x1 / x2``, in the promoted dtype.

    Example:
        >>> lamina.ops.floor_divide(np.array([7, -7]), 2)  # [3, -4]
    """
    return FloorDivide()(x1, x2)


class Mod(_IntOrFloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.mod(x1, x2)


def mod(x1: Any, x2: Any) -> Any:
    """Remainder of floor division; it has the sign of `x2` (Python's ``%``).

    Example:
        >>> lamina.ops.mod(np.array([7, -7]), 3)  # [1, 2]
    """
    return Mod()(x1, x2)


class Fmod(_IntOrFloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.fmod(x1, x2)


def fmod(x1: Any, x2: Any) -> Any:
    """Remainder of truncated division; it has the sign of `x1` (C's ``fmod``).

    Example:
        >>> lamina.ops.fmod(np.array([7, -7]), 3)  # [1, -1]
    """
    return Fmod()(x1, x2)


class Power(_IntOrFloatBinary):
    allow_complex = True

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.power(x1, x2)


def power(x1: Any, x2: Any) -> Any:
    """`x1` raised to the power `x2`, element-wise.

    Example:
        >>> lamina.ops.power(np.array([2, 3]), 2)  # [4, 9]
    """
    return Power()(x1, x2)


class _RealBinary(Binary):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype


class Maximum(_RealBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.maximum(x1, x2)


def maximum(x1: Any, x2: Any) -> Any:
    """Element-wise maximum; NaN wins if either input is NaN.

    Example:
        >>> lamina.ops.maximum(np.array([1, 5]), 3)  # [3, 5]
    """
    return Maximum()(x1, x2)


class Minimum(_RealBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.minimum(x1, x2)


def minimum(x1: Any, x2: Any) -> Any:
    """Element-wise minimum; NaN wins if either input is NaN.

    Example:
        >>> lamina.ops.minimum(np.array([1, 5]), 3)  # [1, 3]
    """
    return Minimum()(x1, x2)


class Fmax(_RealBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "fmax")(x1, x2)


def fmax(x1: Any, x2: Any) -> Any:
    """Element-wise maximum that ignores NaN (NaN only where both inputs are NaN).

    Example:
        >>> lamina.ops.fmax(np.array([np.nan, 1.0]), 0.5)  # [0.5, 1.]
    """
    return Fmax()(x1, x2)


class Fmin(_RealBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "fmin")(x1, x2)


def fmin(x1: Any, x2: Any) -> Any:
    """Element-wise minimum that ignores NaN (NaN only where both inputs are NaN).

    Example:
        >>> lamina.ops.fmin(np.array([np.nan, 1.0]), 0.5)  # [0.5, 0.5]
    """
    return Fmin()(x1, x2)


class Gcd(Binary):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, dtypes.INTS, "integer")
        return dtype

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.gcd(x1, x2)


def gcd(x1: Any, x2: Any) -> Any:
    """Greatest common divisor of integer inputs, element-wise (always non-negative).

    Example:
        >>> lamina.ops.gcd(np.array([12, 20]), 8)  # [4, 4]
    """
    return Gcd()(x1, x2)


class Lcm(Gcd):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "lcm")(x1, x2)


def lcm(x1: Any, x2: Any) -> Any:
    """Least common multiple of integer inputs, element-wise (always non-negative).

    Example:
        >>> lamina.ops.lcm(np.array([4, 6]), 10)  # [20, 30]
    """
    return Lcm()(x1, x2)


class Negative(Unary):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, _NUMBERS, "numeric (non-bool)")
        return dtype

    def compute(self, x: Any) -> Any:
        return backend().numpy.negative(x)


def negative(x: Any) -> Any:
    """Numerical negative, element-wise (unsigned integers wrap around).

    Example:
        >>> lamina.ops.negative(np.array([1, -2]))  # [-1, 2]
    """
    return Negative()(x)


class Absolute(Unary):
    def output_dtype(self, dtype: str) -> str:
        # |complex| is real: complex64 -> float32, complex128 -> float64.
        return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        dtype = self.input_dtype(dtypes.dtype_of(x))
        if dtype in dtypes.BOOL + dtypes.UNSIGNED_INTS:
            return x  # already non-negative
        return finish(backend().numpy.absolute(x), self.output_dtype(dtype))


def absolute(x: Any) -> Any:
    """Absolute value element-wise; the magnitude (a float) for complex inputs.

    Example:
        >>> lamina.ops.absolute(np.array([-1.5, 2.0]))  # [1.5, 2.]
    """
    return Absolute()(x)


class Abs(Absolute):
    pass


def abs(x: Any) -> Any:
    """Alias of `absolute`.

    Example:
        >>> lamina.ops.abs(np.array([-3, 3]))  # [3, 3]
    """
    return Abs()(x)


class Fabs(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.absolute(x)


def fabs(x: Any) -> Any:
    """Absolute value as a float (integers become floatx); complex inputs are rejected.

    Example:
        >>> lamina.ops.fabs(np.array([-2, 3]))  # [2., 3.], float32
    """
    return Fabs()(x)


class Sign(Negative):
    def compute(self, x: Any) -> Any:
        return backend().numpy.sign(x)


def sign(x: Any) -> Any:
    """-1, 0 or 1 by the sign of each element (``x / |x|`` for complex, 0 at 0).

    Example:
        >>> lamina.ops.sign(np.array([-2.0, 0.0, 3.0]))  # [-1., 0., 1.]
    """
    return Sign()(x)


class Square(Unary):
    def input_dtype(self, dtype: str) -> str:
        return _bool_to_int(super().input_dtype(dtype))

    def compute(self, x: Any) -> Any:
        return composite("numpy", "square")(x)


def square(x: Any) -> Any:
    """``x * x`` element-wise (bools count as int32).

    Example:
        >>> lamina.ops.square(np.array([2, -3]))  # [4, 9]
    """
    return Square()(x)


class Reciprocal(FloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "reciprocal")(x)


def reciprocal(x: Any) -> Any:
    """``1 / x`` element-wise; integers become floatx.

    Example:
        >>> lamina.ops.reciprocal(np.array([2.0, 4.0]))  # [0.5, 0.25]
    """
    return Reciprocal()(x)
