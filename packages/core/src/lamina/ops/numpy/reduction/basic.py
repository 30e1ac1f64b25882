"""Plain reductions: sums, extrema, moments, truth tests and index reductions."""

from __future__ import annotations

import builtins
from typing import Any

from lamina.ops import composites, dtypes
from lamina.ops.base import Op, Reduction
from lamina.ops.composites import composite, pick
from lamina.ops.dispatch import backend, promote, to_tensor
from lamina.ops.numpy.reduction._common import (
    AccumulatingReduction,
    ArgReduction,
    ExtremumReduction,
    FloatReduction,
    cast,
    check_not_bool,
    float_dtype,
)
from lamina.ops.shapes import broadcast_shapes, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "all",
    "allclose",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "average",
    "count_nonzero",
    "max",
    "mean",
    "min",
    "prod",
    "ptp",
    "std",
    "sum",
    "var",
]


class Sum(AccumulatingReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.sum(x, axes, self.keepdims)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Sum of elements over `axis` (None: all axes); bools and small ints give int32.

    Example:
        >>> lamina.ops.sum(np.ones((2, 3)), axis=1)  # [3., 3.]
    """
    return Sum(axis=axis, keepdims=keepdims)(x)


class Prod(AccumulatingReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.prod(x, axes, self.keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Product of elements over `axis`; bools and small ints give int32.

    Example:
        >>> lamina.ops.prod(np.array([[1, 2], [3, 4]]), axis=0)  # [3, 8]
    """
    return Prod(axis=axis, keepdims=keepdims)(x)


class Mean(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.mean(x, axes, self.keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Arithmetic mean over `axis`; int and bool inputs give floatx.

    Example:
        >>> lamina.ops.mean(np.array([1, 2, 3, 4]))  # 2.5
    """
    return Mean(axis=axis, keepdims=keepdims)(x)


class Max(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.max(x, axes, self.keepdims, self.initial)


def max(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    """Maximum over `axis`, no smaller than `initial` when given.

    Args:
        x: input tensor.
        axis: an int, a tuple of ints, or None for all axes.
        keepdims: keep the reduced axes with length 1.
        initial: a Python number the result is at least (needed for empty axes).

    Example:
        >>> lamina.ops.max(np.array([[1, 5], [3, 2]]), axis=1)  # [5, 3]
    """
    return Max(axis=axis, keepdims=keepdims, initial=initial)(x)


class Min(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.min(x, axes, self.keepdims, self.initial)


def min(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    """Minimum over `axis`, no larger than `initial` when given.

    Example:
        >>> lamina.ops.min(np.array([[1, 5], [3, 2]]), axis=1)  # [1, 2]
    """
    return Min(axis=axis, keepdims=keepdims, initial=initial)(x)


class Amax(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.max(x, axes, self.keepdims)


def amax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Maximum over `axis` (the same as `max` without `initial`).

    Example:
        >>> lamina.ops.amax(np.array([1, 7, 3]))  # 7
    """
    return Amax(axis=axis, keepdims=keepdims)(x)


class Amin(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.min(x, axes, self.keepdims)


def amin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Minimum over `axis` (the same as `min` without `initial`).

    Example:
        >>> lamina.ops.amin(np.array([1, 7, 3]))  # 1
    """
    return Amin(axis=axis, keepdims=keepdims)(x)


class _TruthReduction(Reduction):
    def output_dtype(self, dtype: str) -> str:
        return "bool"


class All(_TruthReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.all(x, axes, self.keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether every element over `axis` is truthy, as bool.

    Example:
        >>> lamina.ops.all(np.array([[1, 0], [1, 1]]), axis=1)  # [False, True]
    """
    return All(axis=axis, keepdims=keepdims)(x)


class Any_(_TruthReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.any(x, axes, self.keepdims)


Any_.op_name = "any"  # the class name cannot shadow typing.Any


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether some element over `axis` is truthy, as bool.

    Example:
        >>> lamina.ops.any(np.array([[1, 0], [0, 0]]), axis=1)  # [True, False]
    """
    return Any_(axis=axis, keepdims=keepdims)(x)


class Std(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return composite("numpy", "std")(x, axes, self.keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population standard deviation over `axis`; ints give floatx.

    Example:
        >>> lamina.ops.std(np.array([1.0, 3.0]))  # 1.0
    """
    return Std(axis=axis, keepdims=keepdims)(x)


class Var(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.var(x, axes, self.keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population variance over `axis`; ints give floatx.

    Example:
        >>> lamina.ops.var(np.array([1.0, 3.0]))  # 1.0
    """
    return Var(axis=axis, keepdims=keepdims)(x)


class Ptp(ExtremumReduction):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        check_not_bool(self.op_name, dtypes.dtype_of(x))
        return super().compute_output_spec(x)

    def check_input(self, shape: tuple[int | None, ...], axes: Any, dtype: str) -> None:
        check_not_bool(self.op_name, dtype)
        super().check_input(shape, axes, dtype)

    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return pick(backend().numpy, "ptp", composites.ptp)(x, axes, self.keepdims)


def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Range (maximum minus minimum) over `axis`.

    Example:
        >>> lamina.ops.ptp(np.array([[1, 5], [3, 2]]), axis=1)  # [4, 1]
    """
    return Ptp(axis=axis, keepdims=keepdims)(x)


class CountNonzero(Reduction):
    def __init__(self, axis: Any = None, name: str | None = None):
        super().__init__(axis=axis, keepdims=False, name=name)

    def output_dtype(self, dtype: str) -> str:
        return "int32"

    def input_dtype(self, dtype: str) -> str:
        return dtype  # counted in its own dtype; the count is int32

    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return cast(composite("numpy", "count_nonzero")(x, axes), "int32")


def count_nonzero(x: Any, axis: Any = None) -> Any:
    """Number of non-zero elements over `axis` (None: all), as int32.

    Example:
        >>> lamina.ops.count_nonzero(np.array([[0, 1], [2, 3]]), axis=1)  # [1, 2]
    """
    return CountNonzero(axis=axis)(x)


class Argmax(ArgReduction):
    def compute(self, x: Any, axis: int | None) -> Any:
        return backend().numpy.argmax(x, axis, self.keepdims)


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Index of the maximum along `axis` (None: in the flattened tensor), as int32.

    Example:
        >>> lamina.ops.argmax(np.array([[1, 5], [3, 2]]), axis=1)  # [1, 0]
    """
    return Argmax(axis=axis, keepdims=keepdims)(x)


class Argmin(ArgReduction):
    def compute(self, x: Any, axis: int | None) -> Any:
        return backend().numpy.argmin(x, axis, self.keepdims)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Index of the minimum along `axis` (None: in the flattened tensor), as int32.

    Example:
        >>> lamina.ops.argmin(np.array([[1, 5], [3, 2]]), axis=1)  # [0, 1]
    """
    return Argmin(axis=axis, keepdims=keepdims)(x)


class Average(Op):
    def __init__(self, axis: Any = None, name: str | None = None):
        super().__init__(name=name)
        self.axis = axis

    def _check(self, x: Any, weights: Any) -> tuple[int | None, str]:
        shape = static_shape(x)
        axis = None if self.axis is None else canonical_axis(self.op_name, self.axis, len(shape))
        if weights is None:
            return axis, float_dtype(dtypes.dtype_of(x))
        w_shape = static_shape(weights)
        along_axis = axis is not None and len(w_shape) == 1 and len(shape) > 1
        if along_axis and axis is not None:
            if None not in (w_shape[0], shape[axis]) and w_shape[0] != shape[axis]:
                raise ValueError(
                    f"`{self.op_name}`: 1-D `weights` must have the length of `x` along "
                    f"`axis`. Received: weights.shape={w_shape}, x.shape={shape}, axis={axis}"
                )
        elif len(w_shape) != len(shape) or builtins.any(
            a is not None and b is not None and a != b for a, b in zip(w_shape, shape)
        ):
            raise ValueError(
                f"`{self.op_name}`: argument `weights` must have the shape of `x`, or be 1-D "
                f"along `axis`. Received: weights.shape={w_shape}, x.shape={shape}"
            )
        try:
            common = dtypes.result_type(dtypes.promotion_key(x), dtypes.promotion_key(weights))
        except ValueError as e:
            raise TypeError(f"`{self.op_name}`: {e}") from None
        return axis, float_dtype(common)

    def compute_output_spec(self, x: Any, weights: Any = None) -> SymbolicTensor:
        axis, dtype = self._check(x, weights)
        shape = static_shape(x)
        out = () if axis is None else tuple(d for i, d in enumerate(shape) if i != axis)
        return SymbolicTensor(out, dtype)

    def call(self, x: Any, weights: Any = None) -> Any:
        axis, dtype = self._check(x, weights)
        if weights is None:
            return composite("numpy", "average")(to_tensor(x, dtype), axis, None)
        x, weights = promote(self.op_name, x, weights, dtype=dtype)
        return composite("numpy", "average")(x, axis, weights)


def average(x: Any, axis: Any = None, weights: Any = None) -> Any:
    """Weighted average over `axis` (None: all elements); the result is a float.

    Args:
        x: input tensor.
        axis: an int, or None to average every element.
        weights: None (a plain mean), a tensor of `x`'s shape, or a 1-D tensor of the
            length of `x` along `axis`.

    Example:
        >>> lamina.ops.average(np.array([1.0, 3.0]), weights=np.array([3.0, 1.0]))  # 1.5
    """
    return Average(axis=axis)(x, weights)


class Allclose(Op):
    def __init__(
        self,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        equal_nan: bool = False,
        name: str | None = None,
    ):
        super().__init__(name=name)
        for arg, value in (("rtol", rtol), ("atol", atol)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(
                    f"`allclose`: argument `{arg}` must be a non-negative number. "
                    f"Received: {arg}={value!r}"
                )
        self.rtol, self.atol, self.equal_nan = float(rtol), float(atol), bool(equal_nan)

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        return SymbolicTensor((), "bool")

    def call(self, x1: Any, x2: Any) -> Any:
        broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        a, b = promote(self.op_name, x1, x2)
        return composite("numpy", "allclose")(a, b, self.rtol, self.atol, self.equal_nan)


def allclose(
    x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
) -> Any:
    """Whether ``|x1 - x2| <= atol + rtol * |x2|`` everywhere, as a bool scalar.

    Example:
        >>> lamina.ops.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))  # True
    """
    return Allclose(rtol=rtol, atol=atol, equal_nan=equal_nan)(x1, x2)
