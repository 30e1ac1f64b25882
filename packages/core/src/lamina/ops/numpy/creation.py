"""Array creation: ranges, constants, windows, grids."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.shapes import (
    broadcast_shapes,
    canonical_axis,
    known_dims,
    require_known,
    shape_arg,
    static_shape,
)
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "arange",
    "array",
    "bartlett",
    "blackman",
    "copy",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "geomspace",
    "hamming",
    "hanning",
    "identity",
    "kaiser",
    "linspace",
    "logspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tri",
    "zeros",
    "zeros_like",
]


def _shape_arg(op: str, shape: Any) -> tuple[Any, ...]:
    """Non-negative int dims, or scalar integer tensors where a backend traces sizes."""
    return require_known(op, shape_arg(op, shape))


def _int_arg(op: str, arg: str, value: Any, minimum: int | None = 0) -> int:
    """`value` as a Python int (>= `minimum` when given)."""
    if isinstance(value, bool):
        value = None
    try:
        out = operator.index(value)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `{arg}` must be an int. Received: {arg}={value!r}"
        ) from None
    if minimum is not None and out < minimum:
        raise ValueError(f"`{op}`: argument `{arg}` must be >= {minimum}. Received: {arg}={out}")
    return out


def _dtype_arg(op: str, dtype: Any) -> str | None:
    """`dtype` standardized (None stays None); a bad dtype's error names the op."""
    if dtype is None:
        return None
    try:
        return dtypes.standardize_dtype(dtype)
    except ValueError as e:
        raise ValueError(f"`{op}`: {e}") from None


def _float_default(op: str, dtype: Any) -> str:
    return _dtype_arg(op, dtype) or dtypes.standardize_dtype(None)


def _scalar_dtype(op: str, *values: Any) -> str:
    try:
        return dtypes.result_type(*(dtypes.promotion_key(v) for v in values if v is not None))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None


# ----------------------------------------------------------------------------- constants


def zeros(shape: Any, dtype: Any = None) -> Any:
    """A tensor of zeros of `shape` and `dtype` (default `floatx()`).

    Example:
        >>> lamina.ops.zeros((2, 3)).shape  # (2, 3)
    """
    return composite("numpy", "zeros")(_shape_arg("zeros", shape), _float_default("zeros", dtype))


def ones(shape: Any, dtype: Any = None) -> Any:
    """A tensor of ones of `shape` and `dtype` (default `floatx()`).

    Example:
        >>> lamina.ops.ones((2,))  # [1., 1.]
    """
    return composite("numpy", "ones")(_shape_arg("ones", shape), _float_default("ones", dtype))


def empty(shape: Any, dtype: Any = None) -> Any:
    """A tensor of `shape` and `dtype`; Lamina fills it with zeros for reproducibility.

    Example:
        >>> lamina.ops.empty((2, 2)).shape  # (2, 2)
    """
    return composite("numpy", "zeros")(_shape_arg("empty", shape), _float_default("empty", dtype))


class Full(Op):
    def __init__(self, shape: Any, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shape = _shape_arg(self.op_name, shape)
        self.dtype = _dtype_arg(self.op_name, dtype)

    def _spec(self, fill_value: Any) -> tuple[tuple[Any, ...], str]:
        broadcast_shapes(self.op_name, static_shape(fill_value), known_dims(self.shape))
        return self.shape, self.dtype or dtypes.dtype_of(fill_value)

    def compute_output_spec(self, fill_value: Any) -> SymbolicTensor:
        shape, dtype = self._spec(fill_value)
        return SymbolicTensor(known_dims(shape), dtype)

    def call(self, fill_value: Any) -> Any:
        shape, dtype = self._spec(fill_value)
        return backend().numpy.full(shape, to_tensor(fill_value, dtype), dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    """A tensor of `shape` filled with `fill_value` (broadcast).

    Args:
        shape: the output shape.
        fill_value: a scalar or tensor broadcastable to `shape`.
        dtype: the output dtype; by default `fill_value`'s (Python floats: `floatx()`).

    Example:
        >>> lamina.ops.full((2,), 7)  # [7, 7], int32
    """
    return Full(shape, dtype)(fill_value)


class FullLike(Op):
    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = _dtype_arg(self.op_name, dtype)

    def compute_output_spec(self, x: Any, fill_value: Any) -> SymbolicTensor:
        shape = static_shape(x)
        broadcast_shapes(self.op_name, static_shape(fill_value), shape)
        return SymbolicTensor(shape, self.dtype or dtypes.dtype_of(x))

    def call(self, x: Any, fill_value: Any) -> Any:
        x = to_tensor(x)
        broadcast_shapes(self.op_name, static_shape(fill_value), static_shape(x))
        dtype = self.dtype or dtypes.dtype_of(x)
        return backend().numpy.full_like(x, to_tensor(fill_value, dtype), dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    """A tensor shaped like `x` filled with `fill_value`; dtype defaults to `x`'s.

    Example:
        >>> lamina.ops.full_like(np.zeros((2,), "int32"), 3)  # [3, 3]
    """
    return FullLike(dtype)(x, fill_value)


class _FilledLike(Op):
    """zeros_like / ones_like / empty_like: `x`'s shape filled with a constant."""

    fill = 0

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = _dtype_arg(self.op_name, dtype)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(static_shape(x), self.dtype or dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        dtype = self.dtype or dtypes.dtype_of(x)
        fill = bool(self.fill) if dtype == "bool" else self.fill
        return backend().numpy.full_like(x, to_tensor(fill, dtype), dtype)


class ZerosLike(_FilledLike):
    fill = 0


class OnesLike(_FilledLike):
    fill = 1


class EmptyLike(_FilledLike):
    fill = 0


def zeros_like(x: Any, dtype: Any = None) -> Any:
    """A tensor of zeros shaped like `x`; dtype defaults to `x`'s.

    Example:
        >>> lamina.ops.zeros_like(np.ones((2, 3))).shape  # (2, 3)
    """
    return ZerosLike(dtype)(x)


def ones_like(x: Any, dtype: Any = None) -> Any:
    """A tensor of ones shaped like `x`; dtype defaults to `x`'s.

    Example:
        >>> lamina.ops.ones_like(np.zeros((2,)))  # [1., 1.]
    """
    return OnesLike(dtype)(x)


def empty_like(x: Any, dtype: Any = None) -> Any:
    """A tensor shaped like `x` (Lamina fills it with zeros); dtype defaults to `x`'s.

    Example:
        >>> lamina.ops.empty_like(np.ones((2,))).shape  # (2,)
    """
    return EmptyLike(dtype)(x)


def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    """A 2-D tensor with ones on the `k`-th diagonal and zeros elsewhere.

    Args:
        N: number of rows.
        M: number of columns (default `N`).
        k: diagonal offset; positive is above the main diagonal.
        dtype: output dtype (default `floatx()`).

    Example:
        >>> lamina.ops.eye(2)  # [[1., 0.], [0., 1.]]
    """
    n = _int_arg("eye", "N", N)
    m = n if M is None else _int_arg("eye", "M", M)
    k = _int_arg("eye", "k", k, None)
    return composite("numpy", "eye")(n, m, k, _float_default("eye", dtype))


def identity(n: Any, dtype: Any = None) -> Any:
    """The `n` x `n` identity matrix.

    Example:
        >>> lamina.ops.identity(3).shape  # (3, 3)
    """
    n = _int_arg("identity", "n", n)
    return composite("numpy", "eye")(n, n, 0, _float_default("identity", dtype))


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    """A 2-D tensor with ones at and below the `k`-th diagonal, zeros above.

    Example:
        >>> lamina.ops.tri(3)  # lower triangle of ones
    """
    n = _int_arg("tri", "N", N)
    m = n if M is None else _int_arg("tri", "M", M)
    return composite("numpy", "tri")(
        n, m, _int_arg("tri", "k", k, None), _float_default("tri", dtype)
    )


def _convert(op: str, x: Any, dtype: str | None) -> Any:
    try:
        return to_tensor(x, dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"`{op}`: cannot convert `x` to a tensor: {e}") from None


class Copy(Op):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(static_shape(x), dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        return backend().numpy.copy(_convert(self.op_name, x, None))


def copy(x: Any) -> Any:
    """A copy of `x`.

    Example:
        >>> lamina.ops.copy(np.array([1, 2]))  # [1, 2]
    """
    return Copy()(x)


class Array(Op):
    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = _dtype_arg(self.op_name, dtype)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(static_shape(x), self.dtype or dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        return _convert(self.op_name, x, self.dtype)


def array(x: Any, dtype: Any = None) -> Any:
    """`x` (a tensor, array or nested list) as a tensor of `dtype`.

    Example:
        >>> lamina.ops.array([1, 2])  # int32 tensor
    """
    return Array(dtype)(x)


# ----------------------------------------------------------------------------- ranges


def _python_number(x: Any) -> Any:
    """`x` itself if a Python or NumPy scalar (as a Python number), else None."""
    if isinstance(x, (bool, int, float)):
        return x
    if isinstance(x, np.generic) and x.ndim == 0:
        return x.item()
    return None


class Arange(Op):
    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = _dtype_arg(self.op_name, dtype)

    def _spec(self, start: Any, stop: Any, step: Any) -> tuple[tuple[int | None, ...], str]:
        dtype = self.dtype or _scalar_dtype(self.op_name, start, stop, step)
        if dtype in ("bool", "string") or dtype in dtypes.COMPLEXES:
            raise TypeError(
                f"`{self.op_name}`: the dtype must be an int or float dtype. Received: {dtype}"
            )
        nums = [_python_number(v) for v in (start, stop, step)]
        if nums[2] == 0:
            raise ValueError(f"`{self.op_name}`: argument `step` must not be 0. Received: step=0")
        if any(n is None for n in nums):
            return (None,), dtype
        length = max(math.ceil((nums[1] - nums[0]) / nums[2]), 0)
        return (length,), dtype

    def compute_output_spec(self, start: Any, stop: Any, step: Any) -> SymbolicTensor:
        return SymbolicTensor(*self._spec(start, stop, step))

    def call(self, start: Any, stop: Any, step: Any) -> Any:
        shape, dtype = self._spec(start, stop, step)
        if shape == (0,):
            # Empty ranges: torch and TF reject a step pointing away from `stop`.
            return composite("numpy", "zeros")((0,), dtype)
        args = [v if _python_number(v) is not None else to_tensor(v) for v in (start, stop, step)]
        args = [_python_number(v) if _python_number(v) is not None else v for v in args]
        return backend().numpy.arange(args[0], args[1], args[2], dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Evenly spaced values in ``[start, stop)`` with spacing `step`.

    With one argument, it is `stop` and the range starts at 0. Python ints give int32,
    Python floats `floatx()`.

    Example:
        >>> lamina.ops.arange(1, 7, 2)  # [1, 3, 5], int32
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    return Arange(dtype)(start, stop, step)


class _Spaced(Op):
    """linspace / logspace / geomspace: `num` samples between `start` and `stop`."""

    def __init__(
        self,
        num: Any = 50,
        endpoint: bool = True,
        dtype: Any = None,
        axis: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.num = _int_arg(self.op_name, "num", num)
        self.endpoint = bool(endpoint)
        self.dtype = _dtype_arg(self.op_name, dtype)
        self.axis = axis

    def _spec(self, start: Any, stop: Any) -> tuple[tuple[int | None, ...], str, str, int]:
        """Output shape, output dtype, computation (float) dtype, canonical axis."""
        shape = broadcast_shapes(self.op_name, static_shape(start), static_shape(stop))
        compute = _scalar_dtype(self.op_name, start, stop, 1.0)
        if compute not in dtypes.FLOATS:
            raise TypeError(
                f"`{self.op_name}`: arguments `start` and `stop` must be real numbers. "
                f"Received dtype: {compute}"
            )
        axis = canonical_axis(self.op_name, self.axis, len(shape) + 1)
        out = shape[:axis] + (self.num,) + shape[axis:]
        return out, self.dtype or compute, compute, axis

    def compute_output_spec(self, start: Any, stop: Any) -> Any:
        shape, dtype, _, _ = self._spec(start, stop)
        return SymbolicTensor(shape, dtype)

    def call(self, start: Any, stop: Any) -> Any:
        _, dtype, compute, axis = self._spec(start, stop)
        a, b = to_tensor(start, compute), to_tensor(stop, compute)
        out = self.compute(a, b, axis)
        return out if dtype == compute else backend().core.cast(out, dtype)

    def compute(self, start: Any, stop: Any, axis: int) -> Any:
        raise NotImplementedError


class Linspace(_Spaced):
    def __init__(
        self,
        num: Any = 50,
        endpoint: bool = True,
        retstep: bool = False,
        dtype: Any = None,
        axis: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__(num, endpoint, dtype, axis, name=name)
        self.retstep = bool(retstep)

    def compute_output_spec(self, start: Any, stop: Any) -> Any:
        shape, dtype, compute, axis = self._spec(start, stop)
        out = SymbolicTensor(shape, dtype)
        if self.retstep:
            return out, SymbolicTensor(shape[:axis] + shape[axis + 1 :], compute)
        return out

    def call(self, start: Any, stop: Any) -> Any:
        _, dtype, compute, axis = self._spec(start, stop)
        samples, step = backend().numpy.linspace(
            to_tensor(start, compute), to_tensor(stop, compute), self.num, self.endpoint, axis
        )
        if dtype != compute:
            samples = backend().core.cast(samples, dtype)
        return (samples, step) if self.retstep else samples


def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """`num` evenly spaced samples over ``[start, stop]`` (or ``[start, stop)``).

    Args:
        start: the first value (scalar or tensor).
        stop: the last value, included when `endpoint` is True.
        num: the number of samples.
        endpoint: whether `stop` is the last sample.
        retstep: also return the spacing between samples.
        dtype: output dtype (default: the float dtype of `start` and `stop`).
        axis: where the samples axis goes when `start`/`stop` are tensors.

    Returns:
        The samples, or ``(samples, step)`` when `retstep`.

    Example:
        >>> lamina.ops.linspace(0.0, 1.0, 5)  # [0., .25, .5, .75, 1.]
    """
    return Linspace(num, endpoint, retstep, dtype, axis)(start, stop)


class Logspace(_Spaced):
    def __init__(
        self,
        num: Any = 50,
        endpoint: bool = True,
        base: float = 10.0,
        dtype: Any = None,
        axis: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__(num, endpoint, dtype, axis, name=name)
        if _python_number(base) is None:
            raise TypeError(
                f"`{self.op_name}`: argument `base` must be a Python number. Received: "
                f"base={base!r}"
            )
        self.base = float(base)

    def compute(self, start: Any, stop: Any, axis: int) -> Any:
        return composite("numpy", "logspace")(start, stop, self.num, self.endpoint, self.base, axis)


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: float = 10,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """`num` samples spaced evenly on a log scale: ``base ** linspace(start, stop)``.

    Example:
        >>> lamina.ops.logspace(0.0, 2.0, 3)  # [1., 10., 100.]
    """
    return Logspace(num, endpoint, base, dtype, axis)(start, stop)


class Geomspace(_Spaced):
    def call(self, start: Any, stop: Any) -> Any:
        for arg, value in (("start", start), ("stop", stop)):
            number = _python_number(value)
            if number is not None and number == 0:
                raise ValueError(
                    f"`{self.op_name}`: argument `{arg}` must be non-zero. Received: "
                    f"{arg}={value!r}"
                )
        return super().call(start, stop)

    def compute(self, start: Any, stop: Any, axis: int) -> Any:
        return backend().numpy.geomspace(start, stop, self.num, self.endpoint, axis)


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """`num` samples spaced evenly on a log scale between `start` and `stop` (a geometric
    progression with those endpoints).

    Example:
        >>> lamina.ops.geomspace(1.0, 1000.0, 4)  # [1., 10., 100., 1000.]
    """
    return Geomspace(num, endpoint, dtype, axis)(start, stop)


# ----------------------------------------------------------------------------- grids


class Meshgrid(Op):
    def __init__(self, indexing: str = "xy", name: str | None = None) -> None:
        super().__init__(name=name)
        if indexing not in ("xy", "ij"):
            raise ValueError(
                f"`{self.op_name}`: argument `indexing` must be 'xy' or 'ij'. Received: "
                f"indexing={indexing!r}"
            )
        self.indexing = indexing

    def _spec(self, xs: tuple[Any, ...]) -> tuple[tuple[int | None, ...], str]:
        sizes: list[int | None] = []
        for i, x in enumerate(xs):
            shape = static_shape(x)
            if len(shape) != 1:
                raise ValueError(
                    f"`{self.op_name}`: every input must be 1-D. Received: x[{i}].shape={shape}"
                )
            sizes.append(shape[0])
        if self.indexing == "xy" and len(sizes) >= 2:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        return tuple(sizes), _scalar_dtype(self.op_name, *xs)

    def compute_output_spec(self, *xs: Any) -> list[SymbolicTensor]:
        shape, dtype = self._spec(xs)
        return [SymbolicTensor(shape, dtype) for _ in xs]

    def call(self, *xs: Any) -> list[Any]:
        _, dtype = self._spec(xs)
        return list(
            composite("numpy", "meshgrid")([to_tensor(x, dtype) for x in xs], self.indexing)
        )


def meshgrid(*x: Any, indexing: str = "xy") -> Any:
    """Coordinate grids from 1-D coordinate vectors.

    Args:
        *x: 1-D tensors.
        indexing: "xy" (Cartesian, default) or "ij" (matrix) indexing.

    Returns:
        A list of N-D tensors, one per input.

    Example:
        >>> xx, yy = lamina.ops.meshgrid(np.arange(3), np.arange(2))  # shapes (2, 3)
    """
    return Meshgrid(indexing)(*x)


# ----------------------------------------------------------------------------- windows
# Windows depend on their length only, so they are computed once in float64 with NumPy
# (exact on every backend) and handed over as a constant of floatx.


def _window(values: Any) -> Any:
    return to_tensor(np.asarray(values, dtype=np.float64), dtypes.standardize_dtype(None))


def _window_length(op: str, M: Any) -> int:
    return _int_arg(op, "x", M, None)


def bartlett(x: Any) -> Any:
    """The Bartlett (triangular) window of length `x`.

    Example:
        >>> lamina.ops.bartlett(5)  # [0., .5, 1., .5, 0.]
    """
    m = _window_length("bartlett", x)
    return _window(np.bartlett(m))


def blackman(x: Any) -> Any:
    """The Blackman window of length `x`.

    Example:
        >>> lamina.ops.blackman(5).shape  # (5,)
    """
    m = _window_length("blackman", x)
    return _window(np.blackman(m))


def hamming(x: Any) -> Any:
    """The Hamming window of length `x`.

    Example:
        >>> lamina.ops.hamming(5).shape  # (5,)
    """
    m = _window_length("hamming", x)
    return _window(np.hamming(m))


def hanning(x: Any) -> Any:
    """The Hann window of length `x`.

    Example:
        >>> lamina.ops.hanning(5)  # [0., .5, 1., .5, 0.]
    """
    m = _window_length("hanning", x)
    return _window(np.hanning(m))


def kaiser(x: Any, beta: Any) -> Any:
    """The Kaiser window of length `x` and shape parameter `beta`.

    Example:
        >>> lamina.ops.kaiser(5, 14.0).shape  # (5,)
    """
    m = _window_length("kaiser", x)
    if _python_number(beta) is None:
        raise TypeError(f"`kaiser`: argument `beta` must be a number. Received: beta={beta!r}")
    return _window(np.kaiser(m, float(beta)))
