"""Parts of complex numbers: real and imaginary parts, conjugate and angle."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend
from lamina.ops.numpy.elementwise._base import Unary, to_float

__all__ = ["angle", "conj", "conjugate", "imag", "real"]

_PART = {"complex64": "float32", "complex128": "float64"}


class Real(Unary):
    def output_dtype(self, dtype: str) -> str:
        return _PART.get(dtype, dtype)

    def compute(self, x: Any) -> Any:
        if dtypes.dtype_of(x) in dtypes.COMPLEXES:
            return backend().numpy.real(x)
        return x


def real(x: Any) -> Any:
    """The real part of each element (real inputs are returned as they are).

    Example:
        >>> lamina.ops.real(np.array([1 + 2j]))  # [1.], float32 for complex64
    """
    return Real()(x)


class Imag(Real):
    def compute(self, x: Any) -> Any:
        return backend().numpy.imag(x)


def imag(x: Any) -> Any:
    """The imaginary part of each element (zeros of the same dtype for real inputs).

    Example:
        >>> lamina.ops.imag(np.array([1 + 2j]))  # [2.]
    """
    return Imag()(x)


class Conjugate(Unary):
    def compute(self, x: Any) -> Any:
        if dtypes.dtype_of(x) in dtypes.COMPLEXES:
            return backend().numpy.conjugate(x)
        return x


def conjugate(x: Any) -> Any:
    """Complex conjugate, element-wise (real inputs are returned as they are).

    Example:
        >>> lamina.ops.conjugate(np.array([1 + 2j]))  # [1 - 2j]
    """
    return Conjugate()(x)


class Conj(Conjugate):
    pass


def conj(x: Any) -> Any:
    """Alias of `conjugate`.

    Example:
        >>> lamina.ops.conj(np.array([1 - 1j]))  # [1 + 1j]
    """
    return Conj()(x)


class Angle(Unary):
    """Float result: the part dtype for complex inputs, floatx for integers."""

    def input_dtype(self, dtype: str) -> str:
        return to_float(self.op_name, dtype)

    def output_dtype(self, dtype: str) -> str:
        return _PART.get(dtype, dtype)

    def compute(self, x: Any) -> Any:
        return composite("numpy", "angle")(x)


def angle(x: Any) -> Any:
    """The counterclockwise angle from the positive real axis, in radians.

    Real inputs give 0 for non-negative values and pi for negative ones.

    Example:
        >>> lamina.ops.angle(np.array([1j, -1.0]))  # [1.5707964, 3.1415927]
    """
    return Angle()(x)
