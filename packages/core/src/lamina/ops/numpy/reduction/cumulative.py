"""Cumulative sums and products, and n-th differences."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.numpy.reduction._common import (
    accumulating_dtype,
    cast,
    check_int,
    check_not_bool,
    is_inexact,
    single_axis_shape,
)
from lamina.ops.shapes import canonical_axis, check_rank, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["cumprod", "cumsum", "diff", "nancumprod", "nancumsum"]


class _Cumulative(Op):
    """Along `axis` (None: the flattened tensor), in `dtype` or the widened input dtype."""

    def __init__(self, axis: Any = None, dtype: Any = None, name: str | None = None):
        super().__init__(name=name)
        self.axis = axis
        try:
            self.dtype = None if dtype is None else dtypes.standardize_dtype(dtype)
        except ValueError as e:
            raise ValueError(f"`{self.op_name}`: {e}") from None

    def _out_dtype(self, x: Any) -> str:
        return self.dtype or accumulating_dtype(dtypes.dtype_of(x))

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape, _ = single_axis_shape(self.op_name, static_shape(x), self.axis)
        return SymbolicTensor(shape, self._out_dtype(x))

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        _, axis = single_axis_shape(self.op_name, static_shape(x), self.axis)
        return self.compute(cast(x, self._out_dtype(x)), axis)

    def compute(self, x: Any, axis: int | None) -> Any:
        raise NotImplementedError


class Cumsum(_Cumulative):
    def compute(self, x: Any, axis: int | None) -> Any:
        return backend().numpy.cumsum(x, axis)


def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    """Cumulative sum along `axis` (None: over the flattened tensor).

    Args:
        x: input tensor.
        axis: an int, or None to flatten first.
        dtype: the output dtype; by default `x`'s (bools and small ints widen to int32).

    Example:
        >>> lamina.ops.cumsum(np.array([1, 2, 3]))  # [1, 3, 6]
    """
    return Cumsum(axis=axis, dtype=dtype)(x)


class Cumprod(_Cumulative):
    def compute(self, x: Any, axis: int | None) -> Any:
        return backend().numpy.cumprod(x, axis)


def cumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    """Cumulative product along `axis` (None: over the flattened tensor).

    Example:
        >>> lamina.ops.cumprod(np.array([1, 2, 3]))  # [1, 2, 6]
    """
    return Cumprod(axis=axis, dtype=dtype)(x)


class Nancumsum(_Cumulative):
    def compute(self, x: Any, axis: int | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nancumsum")(x, axis)
        return backend().numpy.cumsum(x, axis)


def nancumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    """Cumulative sum along `axis` treating NaNs as zero.

    Example:
        >>> lamina.ops.nancumsum(np.array([1.0, np.nan, 2.0]))  # [1., 1., 3.]
    """
    return Nancumsum(axis=axis, dtype=dtype)(x)


class Nancumprod(_Cumulative):
    def compute(self, x: Any, axis: int | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nancumprod")(x, axis)
        return backend().numpy.cumprod(x, axis)


def nancumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
    """Cumulative product along `axis` treating NaNs as one.

    Example:
        >>> lamina.ops.nancumprod(np.array([2.0, np.nan, 3.0]))  # [2., 2., 6.]
    """
    return Nancumprod(axis=axis, dtype=dtype)(x)


class Diff(Op):
    def __init__(self, n: int = 1, axis: int = -1, name: str | None = None):
        super().__init__(name=name)
        self.n = check_int("diff", n, "n", minimum=0)
        self.axis = axis

    def _check(self, a: Any) -> tuple[tuple[int | None, ...], int, int]:
        """The output shape, the axis, and `n` clipped to the axis length."""
        check_not_bool(self.op_name, dtypes.dtype_of(a))
        shape = static_shape(a)
        check_rank(self.op_name, shape, 1, "a")
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        length = shape[axis]
        n = self.n if length is None else min(self.n, length)
        out = list(shape)
        out[axis] = None if length is None else length - n
        return tuple(out), axis, n

    def compute_output_spec(self, a: Any) -> SymbolicTensor:
        shape, _, _ = self._check(a)
        return SymbolicTensor(shape, dtypes.dtype_of(a))

    def call(self, a: Any) -> Any:
        a = to_tensor(a)
        _, axis, n = self._check(a)
        return a if n == 0 else composite("numpy", "diff")(a, n, axis)


def diff(a: Any, n: int = 1, axis: int = -1) -> Any:
    """The `n`-th discrete difference along `axis` (the axis shrinks by `n`).

    Example:
        >>> lamina.ops.diff(np.array([1, 4, 9, 16]))  # [3, 5, 7]
    """
    return Diff(n=n, axis=axis)(a)
