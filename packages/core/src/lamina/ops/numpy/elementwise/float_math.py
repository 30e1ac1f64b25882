"""Float math, element-wise: roots, trigonometry, exponentials, logarithms, special."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote
from lamina.ops.numpy.elementwise._base import (
    FloatBinary,
    FloatOp,
    RealFloatOp,
    check_dtype,
    finish,
)
from lamina.ops.shapes import broadcast_shapes, static_shape

__all__ = [
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "cbrt",
    "cos",
    "cosh",
    "deg2rad",
    "exp",
    "exp2",
    "expm1",
    "heaviside",
    "hypot",
    "i0",
    "ldexp",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "nextafter",
    "rad2deg",
    "sin",
    "sinc",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
]


class Sqrt(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.sqrt(x)


def sqrt(x: Any) -> Any:
    """Non-negative square root, element-wise (NaN below 0 for real inputs).

    Example:
        >>> lamina.ops.sqrt(np.array([4.0, 9.0]))  # [2., 3.]
    """
    return Sqrt()(x)


class Cbrt(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "cbrt")(x)


def cbrt(x: Any) -> Any:
    """Cube root, element-wise (real inputs; negative values give negative roots).

    Example:
        >>> lamina.ops.cbrt(np.array([-8.0, 27.0]))  # [-2., 3.]
    """
    return Cbrt()(x)


class Sin(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.sin(x)


def sin(x: Any) -> Any:
    """Trigonometric sine, element-wise (integer inputs become floatx).

    Example:
        >>> lamina.ops.sin(np.array([0.0]))  # [0.]
    """
    return Sin()(x)


class Cos(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.cos(x)


def cos(x: Any) -> Any:
    """Trigonometric cosine, element-wise.

    Example:
        >>> lamina.ops.cos(np.array([0.0]))  # [1.]
    """
    return Cos()(x)


class Tan(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.tan(x)


def tan(x: Any) -> Any:
    """Trigonometric tangent, element-wise.

    Example:
        >>> lamina.ops.tan(np.array([0.0]))  # [0.]
    """
    return Tan()(x)


class Arcsin(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arcsin(x)


def arcsin(x: Any) -> Any:
    """Inverse sine in radians, element-wise (NaN outside [-1, 1]).

    Example:
        >>> lamina.ops.arcsin(np.array([1.0]))  # [1.5707964]
    """
    return Arcsin()(x)


class Arccos(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arccos(x)


def arccos(x: Any) -> Any:
    """Inverse cosine in radians, element-wise (NaN outside [-1, 1]).

    Example:
        >>> lamina.ops.arccos(np.array([1.0]))  # [0.]
    """
    return Arccos()(x)


class Arctan(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arctan(x)


def arctan(x: Any) -> Any:
    """Inverse tangent in radians, element-wise.

    Example:
        >>> lamina.ops.arctan(np.array([0.0]))  # [0.]
    """
    return Arctan()(x)


class Sinh(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.sinh(x)


def sinh(x: Any) -> Any:
    """Hyperbolic sine, element-wise.

    Example:
        >>> lamina.ops.sinh(np.array([0.0]))  # [0.]
    """
    return Sinh()(x)


class Cosh(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.cosh(x)


def cosh(x: Any) -> Any:
    """Hyperbolic cosine, element-wise.

    Example:
        >>> lamina.ops.cosh(np.array([0.0]))  # [1.]
    """
    return Cosh()(x)


class Tanh(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.tanh(x)


def tanh(x: Any) -> Any:
    """Hyperbolic tangent, element-wise.

    Example:
        >>> lamina.ops.tanh(np.array([0.0]))  # [0.]
    """
    return Tanh()(x)


class Arcsinh(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arcsinh(x)


def arcsinh(x: Any) -> Any:
    """Inverse hyperbolic sine, element-wise.

    Example:
        >>> lamina.ops.arcsinh(np.array([0.0]))  # [0.]
    """
    return Arcsinh()(x)


class Arccosh(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arccosh(x)


def arccosh(x: Any) -> Any:
    """Inverse hyperbolic cosine, element-wise (NaN below 1).

    Example:
        >>> lamina.ops.arccosh(np.array([1.0]))  # [0.]
    """
    return Arccosh()(x)


class Arctanh(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.arctanh(x)


def arctanh(x: Any) -> Any:
    """Inverse hyperbolic tangent, element-wise (NaN outside [-1, 1]).

    Example:
        >>> lamina.ops.arctanh(np.array([0.0]))  # [0.]
    """
    return Arctanh()(x)


class Exp(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.exp(x)


def exp(x: Any) -> Any:
    """Exponential ``e ** x``, element-wise.

    Example:
        >>> lamina.ops.exp(np.array([0.0]))  # [1.]
    """
    return Exp()(x)


class Exp2(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "exp2")(x)


def exp2(x: Any) -> Any:
    """Base-2 exponential ``2 ** x``, element-wise.

    Example:
        >>> lamina.ops.exp2(np.array([3.0]))  # [8.]
    """
    return Exp2()(x)


class Expm1(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.expm1(x)


def expm1(x: Any) -> Any:
    """``exp(x) - 1``, accurate for small `x`.

    Example:
        >>> lamina.ops.expm1(np.array([0.0]))  # [0.]
    """
    return Expm1()(x)


class Log(FloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.log(x)


def log(x: Any) -> Any:
    """Natural logarithm, element-wise (NaN below 0, -inf at 0).

    Example:
        >>> lamina.ops.log(np.array([1.0]))  # [0.]
    """
    return Log()(x)


class Log10(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "log10")(x)


def log10(x: Any) -> Any:
    """Base-10 logarithm, element-wise.

    Example:
        >>> lamina.ops.log10(np.array([100.0]))  # [2.]
    """
    return Log10()(x)


class Log1p(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.log1p(x)


def log1p(x: Any) -> Any:
    """``log(1 + x)``, accurate for small `x`.

    Example:
        >>> lamina.ops.log1p(np.array([0.0]))  # [0.]
    """
    return Log1p()(x)


class Log2(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "log2")(x)


def log2(x: Any) -> Any:
    """Base-2 logarithm, element-wise.

    Example:
        >>> lamina.ops.log2(np.array([8.0]))  # [3.]
    """
    return Log2()(x)


class Sinc(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "sinc")(x)


def sinc(x: Any) -> Any:
    """Normalized sinc ``sin(pi x) / (pi x)``, 1 at 0.

    Example:
        >>> lamina.ops.sinc(np.array([0.0, 1.0]))  # [1., 0.]
    """
    return Sinc()(x)


class I0(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.i0(x)


def i0(x: Any) -> Any:
    """Modified Bessel function of the first kind, order 0.

    Example:
        >>> lamina.ops.i0(np.array([0.0]))  # [1.]
    """
    return I0()(x)


class Deg2rad(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "deg2rad")(x)


def deg2rad(x: Any) -> Any:
    """Convert angles from degrees to radians.

    Example:
        >>> lamina.ops.deg2rad(np.array([180.0]))  # [3.1415927]
    """
    return Deg2rad()(x)


class Rad2deg(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "rad2deg")(x)


def rad2deg(x: Any) -> Any:
    """Convert angles from radians to degrees.

    Example:
        >>> lamina.ops.rad2deg(np.array([np.pi]))  # [180.]
    """
    return Rad2deg()(x)


class Arctan2(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.arctan2(x1, x2)


def arctan2(x1: Any, x2: Any) -> Any:
    """Angle of the point ``(x2, x1)`` in radians, in ``[-pi, pi]``, quadrant-aware.

    Args:
        x1: y-coordinates.
        x2: x-coordinates.

    Example:
        >>> lamina.ops.arctan2(np.array([1.0]), np.array([-1.0]))  # [2.3561945]
    """
    return Arctan2()(x1, x2)


class Hypot(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.hypot(x1, x2)


def hypot(x1: Any, x2: Any) -> Any:
    """``sqrt(x1 ** 2 + x2 ** 2)`` element-wise, without intermediate overflow.

    Example:
        >>> lamina.ops.hypot(np.array([3.0]), np.array([4.0]))  # [5.]
    """
    return Hypot()(x1, x2)


class Logaddexp(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.logaddexp(x1, x2)


def logaddexp(x1: Any, x2: Any) -> Any:
    """``log(exp(x1) + exp(x2))`` element-wise, computed stably.

    Example:
        >>> lamina.ops.logaddexp(np.array([0.0]), np.array([0.0]))  # [0.6931472]
    """
    return Logaddexp()(x1, x2)


class Logaddexp2(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "logaddexp2")(x1, x2)


def logaddexp2(x1: Any, x2: Any) -> Any:
    """``log2(2 ** x1 + 2 ** x2)`` element-wise, computed stably.

    Example:
        >>> lamina.ops.logaddexp2(np.array([1.0]), np.array([1.0]))  # [2.]
    """
    return Logaddexp2()(x1, x2)


class Heaviside(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "heaviside")(x1, x2)


def heaviside(x1: Any, x2: Any) -> Any:
    """Heaviside step: 0 where ``x1 < 0``, `x2` where ``x1 == 0``, 1 where ``x1 > 0``.

    Example:
        >>> lamina.ops.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5)  # [0., 0.5, 1.]
    """
    return Heaviside()(x1, x2)


class Nextafter(FloatBinary):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.nextafter(x1, x2)


def nextafter(x1: Any, x2: Any) -> Any:
    """The next representable float after `x1` in the direction of `x2`.

    Example:
        >>> lamina.ops.nextafter(np.array([1.0]), 2.0)  # [1.0000001]
    """
    return Nextafter()(x1, x2)


class Ldexp(FloatBinary):
    """``x1 * 2 ** x2``; `x2` keeps its integer dtype, `x1` becomes the result float."""

    def dtypes_for(self, x1: Any, x2: Any) -> tuple[str, str]:
        check_dtype(self.op_name, dtypes.dtype_of(x2), dtypes.INTS, "integer exponent (`x2`)")
        return super().dtypes_for(x1, x2)

    def call(self, x1: Any, x2: Any) -> Any:
        broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        compute, out = self.dtypes_for(x1, x2)
        (mantissa,) = promote(self.op_name, x1, dtype=compute)
        (exponent,) = promote(self.op_name, x2, dtype=dtypes.dtype_of(x2))
        return finish(composite("numpy", "ldexp")(mantissa, exponent), out)


def ldexp(x1: Any, x2: Any) -> Any:
    """``x1 * 2 ** x2`` element-wise, for an integer exponent `x2`.

    Example:
        >>> lamina.ops.ldexp(np.array([1.5]), np.array([3]))  # [12.]
    """
    return Ldexp()(x1, x2)
