"""Comparisons, floating-point class tests, membership and logic; all return bool."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote, to_tensor
from lamina.ops.numpy.elementwise._base import (
    NUMERIC,
    REALS,
    Comparison,
    Predicate,
    check_dtype,
    finish,
    to_float,
)
from lamina.ops.shapes import static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "equal",
    "greater",
    "greater_equal",
    "isclose",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "not_equal",
    "signbit",
]


class Equal(Comparison):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.equal(x1, x2)


def equal(x1: Any, x2: Any) -> Any:
    """Return ``x1 == x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.equal(np.array([1, 2]), 2)  # [False, True]
    """
    return Equal()(x1, x2)


class NotEqual(Comparison):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.not_equal(x1, x2)


def not_equal(x1: Any, x2: Any) -> Any:
    """Return ``x1 != x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.not_equal(np.array([1, 2]), 2)  # [True, False]
    """
    return NotEqual()(x1, x2)


class _Ordering(Comparison):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype


class Less(_Ordering):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.less(x1, x2)


def less(x1: Any, x2: Any) -> Any:
    """Return ``x1 < x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.less(np.array([1, 3]), 2)  # [True, False]
    """
    return Less()(x1, x2)


class LessEqual(_Ordering):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.less_equal(x1, x2)


def less_equal(x1: Any, x2: Any) -> Any:
    """Return ``x1 <= x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.less_equal(np.array([1, 3]), 1)  # [True, False]
    """
    return LessEqual()(x1, x2)


class Greater(_Ordering):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.greater(x1, x2)


def greater(x1: Any, x2: Any) -> Any:
    """Return ``x1 > x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.greater(np.array([1, 3]), 2)  # [False, True]
    """
    return Greater()(x1, x2)


class GreaterEqual(_Ordering):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.greater_equal(x1, x2)


def greater_equal(x1: Any, x2: Any) -> Any:
    """Return ``x1 >= x2`` element-wise, as a bool tensor.

    Example:
        >>> lamina.ops.greater_equal(np.array([1, 3]), 3)  # [False, True]
    """
    return GreaterEqual()(x1, x2)


def _tolerance(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(
            f"`isclose`: argument `{name}` must be a non-negative number. "
            f"Received: {name}={value!r}"
        )
    return float(value)


class Isclose(Comparison):
    """Compares in the promoted float dtype (integers become floatx)."""

    def __init__(
        self,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        equal_nan: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.rtol = _tolerance("rtol", rtol)
        self.atol = _tolerance("atol", atol)
        self.equal_nan = bool(equal_nan)

    def input_dtype(self, dtype: str) -> str:
        return to_float(self.op_name, dtype)

    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "isclose")(x1, x2, self.rtol, self.atol, self.equal_nan)

    def get_config(self) -> dict[str, Any]:
        config = {"rtol": self.rtol, "atol": self.atol, "equal_nan": self.equal_nan}
        return {**super().get_config(), **config}


def isclose(
    x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> Any:
    """Whether ``|x1 - x2| <= atol + rtol * |x2|`` element-wise (infinities equal themselves).

    Args:
        x1: first input tensor.
        x2: second input tensor.
        rtol: relative tolerance.
        atol: absolute tolerance.
        equal_nan: whether NaN compares equal to NaN.

    Example:
        >>> lamina.ops.isclose(np.array([1.0, 2.0]), np.array([1.0, 2.1]))  # [True, False]
    """
    return Isclose(rtol, atol, equal_nan)(x1, x2)


class _FloatClass(Predicate):
    """A test of a float's class; integers and bools are always finite and real."""

    integers_pass = False
    real_only = False

    def input_dtype(self, dtype: str) -> str:
        if self.real_only:
            check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return super().input_dtype(dtype)

    def compute(self, x: Any) -> Any:
        if dtypes.dtype_of(x) in dtypes.FLOATS + dtypes.COMPLEXES:
            return self.test(x)
        # x == x is all True and x != x all False, in the right shape, without a float copy.
        np_ops = backend().numpy
        return np_ops.equal(x, x) if self.integers_pass else np_ops.not_equal(x, x)

    def test(self, x: Any) -> Any:
        raise NotImplementedError


class Isfinite(_FloatClass):
    integers_pass = True

    def test(self, x: Any) -> Any:
        return backend().numpy.isfinite(x)


def isfinite(x: Any) -> Any:
    """Whether each element is finite (not inf, not NaN); complex: both parts finite.

    Example:
        >>> lamina.ops.isfinite(np.array([1.0, np.inf, np.nan]))  # [True, False, False]
    """
    return Isfinite()(x)


class Isinf(_FloatClass):
    def test(self, x: Any) -> Any:
        return backend().numpy.isinf(x)


def isinf(x: Any) -> Any:
    """Whether each element is +inf or -inf; complex: either part infinite.

    Example:
        >>> lamina.ops.isinf(np.array([1.0, -np.inf]))  # [False, True]
    """
    return Isinf()(x)


class Isnan(_FloatClass):
    def test(self, x: Any) -> Any:
        return backend().numpy.isnan(x)


def isnan(x: Any) -> Any:
    """Whether each element is NaN; complex: either part NaN.

    Example:
        >>> lamina.ops.isnan(np.array([1.0, np.nan]))  # [False, True]
    """
    return Isnan()(x)


class Isneginf(_FloatClass):
    real_only = True

    def test(self, x: Any) -> Any:
        return composite("numpy", "isneginf")(x)


def isneginf(x: Any) -> Any:
    """Whether each element is -inf (real inputs only).

    Example:
        >>> lamina.ops.isneginf(np.array([np.inf, -np.inf]))  # [False, True]
    """
    return Isneginf()(x)


class Isposinf(_FloatClass):
    real_only = True

    def test(self, x: Any) -> Any:
        return composite("numpy", "isposinf")(x)


def isposinf(x: Any) -> Any:
    """Whether each element is +inf (real inputs only).

    Example:
        >>> lamina.ops.isposinf(np.array([np.inf, -np.inf]))  # [True, False]
    """
    return Isposinf()(x)


class Signbit(Predicate):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype

    def compute(self, x: Any) -> Any:
        dtype = dtypes.dtype_of(x)
        if dtype in dtypes.FLOATS:
            return backend().numpy.signbit(x)
        if dtype in dtypes.SIGNED_INTS:
            return backend().numpy.less(x, to_tensor(0, dtype))
        return backend().numpy.not_equal(x, x)  # bools and unsigned ints have no sign


def signbit(x: Any) -> Any:
    """Whether the sign bit is set (true for -0.0 and negative NaN too).

    Example:
        >>> lamina.ops.signbit(np.array([-0.0, 0.0, -2.0]))  # [True, False, True]
    """
    return Signbit()(x)


class Isreal(Predicate):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "isreal")(x)


def isreal(x: Any) -> Any:
    """Whether each element has a zero imaginary part (always true for real dtypes).

    Example:
        >>> lamina.ops.isreal(np.array([1 + 0j, 1 + 1j]))  # [True, False]
    """
    return Isreal()(x)


class Isin(Op):
    """Membership of each element of `x1` in `x2`, in their promoted dtype."""

    def __init__(
        self, assume_unique: bool = False, invert: bool = False, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.assume_unique = bool(assume_unique)
        self.invert = bool(invert)

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        promote_dtype(self.op_name, x1, x2)
        return SymbolicTensor(static_shape(x1), "bool")

    def call(self, x1: Any, x2: Any) -> Any:
        a, b = promote(self.op_name, x1, x2, dtype=promote_dtype(self.op_name, x1, x2))
        out = backend().numpy.isin(a, b, self.assume_unique, self.invert)
        return finish(out, "bool")

    def get_config(self) -> dict[str, Any]:
        config = {"assume_unique": self.assume_unique, "invert": self.invert}
        return {**super().get_config(), **config}


def promote_dtype(op: str, x1: Any, x2: Any) -> str:
    """The common dtype of `x1` and `x2` (TypeError naming `op` when there is none)."""
    try:
        dtype = dtypes.result_type(dtypes.promotion_key(x1), dtypes.promotion_key(x2))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None
    check_dtype(op, dtype, NUMERIC, "numeric")
    return dtype


def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    """Whether each element of `x1` occurs anywhere in `x2`; the shape is `x1`'s.

    Args:
        x1: the elements to look up.
        x2: the values to look in (any shape; it is flattened).
        assume_unique: a hint that both inputs have unique elements.
        invert: return "not in" instead.

    Example:
        >>> lamina.ops.isin(np.array([1, 2, 3]), np.array([3, 1]))  # [True, False, True]
    """
    return Isin(assume_unique, invert)(x1, x2)


class _Logical(Comparison):
    """Inputs become bool first: any nonzero value is True."""

    def input_dtype(self, dtype: str) -> str:
        super().input_dtype(dtype)
        return "bool"


class LogicalAnd(_Logical):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.logical_and(x1, x2)


def logical_and(x1: Any, x2: Any) -> Any:
    """Truth value of ``x1 AND x2`` element-wise (nonzero counts as True).

    Example:
        >>> lamina.ops.logical_and(np.array([1, 0, 2]), True)  # [True, False, True]
    """
    return LogicalAnd()(x1, x2)


class LogicalOr(_Logical):
    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.logical_or(x1, x2)


def logical_or(x1: Any, x2: Any) -> Any:
    """Truth value of ``x1 OR x2`` element-wise (nonzero counts as True).

    Example:
        >>> lamina.ops.logical_or(np.array([1, 0]), False)  # [True, False]
    """
    return LogicalOr()(x1, x2)


class LogicalXor(_Logical):
    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "logical_xor")(x1, x2)


def logical_xor(x1: Any, x2: Any) -> Any:
    """Truth value of ``x1 XOR x2`` element-wise (nonzero counts as True).

    Example:
        >>> lamina.ops.logical_xor(np.array([1, 0]), True)  # [False, True]
    """
    return LogicalXor()(x1, x2)


class LogicalNot(Predicate):
    def input_dtype(self, dtype: str) -> str:
        super().input_dtype(dtype)
        return "bool"

    def compute(self, x: Any) -> Any:
        return backend().numpy.logical_not(x)


def logical_not(x: Any) -> Any:
    """Truth value of ``NOT x`` element-wise (zero counts as False).

    Example:
        >>> lamina.ops.logical_not(np.array([0, 3]))  # [True, False]
    """
    return LogicalNot()(x)
