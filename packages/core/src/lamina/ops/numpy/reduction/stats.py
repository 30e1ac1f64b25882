"""Order statistics, histograms, counts and correlation."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote, to_tensor
from lamina.ops.numpy.reduction._common import (
    FloatReduction,
    accumulating_dtype,
    cast,
    check_choice,
    check_int,
    float_dtype,
)
from lamina.ops.shapes import canonical_axes, check_rank, reduced_shape, static_shape
from lamina.ops.symbolic import SymbolicTensor, is_symbolic

__all__ = [
    "bincount",
    "corrcoef",
    "digitize",
    "histogram",
    "median",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "quantile",
]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


class Median(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return composite("numpy", "median")(x, axes, self.keepdims)


def median(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Median over `axis` (None: all elements); ints give floatx.

    Example:
        >>> lamina.ops.median(np.array([3.0, 1.0, 2.0]))  # 2.0
    """
    return Median(axis=axis, keepdims=keepdims)(x)


class Nanmedian(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return composite("numpy", "nanmedian")(x, axes, self.keepdims)


def nanmedian(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Median over `axis` ignoring NaNs (NaN where every element is NaN).

    Example:
        >>> lamina.ops.nanmedian(np.array([3.0, np.nan, 1.0]))  # 2.0
    """
    return Nanmedian(axis=axis, keepdims=keepdims)(x)


class Quantile(Op):
    """`q`-th quantiles over `axis`; percentiles are the same with `q` scaled by 1/100."""

    scale = 1.0

    def __init__(
        self,
        axis: Any = None,
        method: str = "linear",
        keepdims: bool = False,
        name: str | None = None,
    ):
        super().__init__(name=name)
        self.axis = axis
        self.method = check_choice(self.op_name, method, "method", _METHODS)
        self.keepdims = bool(keepdims)

    def _check_q(self, q: Any) -> tuple[int | None, ...]:
        shape = static_shape(q)
        check_rank(self.op_name, shape, (0, 1), "q")
        if not is_symbolic(q) and not _is_native_tensor(q):
            values = np.asarray(q, dtype="float64") / self.scale
            if np.any(values < 0) or np.any(values > 1) or np.any(np.isnan(values)):
                hi = 100 if self.scale != 1.0 else 1
                raise ValueError(
                    f"`{self.op_name}`: argument `q` must be in [0, {hi}]. Received: q={q!r}"
                )
        return shape

    def compute_output_spec(self, x: Any, q: Any) -> SymbolicTensor:
        q_shape = self._check_q(q)
        shape = static_shape(x)
        axes = canonical_axes(self.op_name, self.axis, len(shape))
        return SymbolicTensor(
            q_shape + reduced_shape(shape, axes, self.keepdims), float_dtype(dtypes.dtype_of(x))
        )

    def call(self, x: Any, q: Any) -> Any:
        self._check_q(q)
        x = to_tensor(x)
        dtype = float_dtype(dtypes.dtype_of(x))
        axes = canonical_axes(self.op_name, self.axis, len(static_shape(x)))
        q = to_tensor(q, dtype)
        if self.scale != 1.0:
            q = q / self.scale  # every backend's tensor type divides by a Python float
        return self.compute(cast(x, dtype), q, axes)

    def compute(self, x: Any, q: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.quantile(x, q, axes, self.method, self.keepdims)


def _is_native_tensor(x: Any) -> bool:
    """Whether `x` is a native tensor (its values may be traced, so are not checked)."""
    return bool(backend().core.is_tensor(x)) and not isinstance(x, np.ndarray)


def quantile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """The `q`-th quantiles of `x` over `axis`; the dims of `q` lead the output.

    Args:
        x: input tensor.
        q: a scalar or 1-D sequence of quantiles in [0, 1].
        axis: an int, a tuple of ints, or None for all elements.
        method: "linear", "lower", "higher", "midpoint" or "nearest".
        keepdims: keep the reduced axes with length 1.

    Example:
        >>> lamina.ops.quantile(np.array([1.0, 2.0, 3.0, 4.0]), 0.5)  # 2.5
    """
    return Quantile(axis=axis, method=method, keepdims=keepdims)(x, q)


class Nanquantile(Quantile):
    def compute(self, x: Any, q: Any, axes: tuple[int, ...] | None) -> Any:
        return backend().numpy.nanquantile(x, q, axes, self.method, self.keepdims)


def nanquantile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """`quantile` ignoring NaNs (NaN where every element is NaN).

    Example:
        >>> lamina.ops.nanquantile(np.array([1.0, np.nan, 3.0]), 0.5)  # 2.0
    """
    return Nanquantile(axis=axis, method=method, keepdims=keepdims)(x, q)


class Percentile(Quantile):
    scale = 100.0


def percentile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """The `q`-th percentiles (`q` in [0, 100]) of `x` over `axis`.

    Example:
        >>> lamina.ops.percentile(np.array([1.0, 2.0, 3.0, 4.0]), 50)  # 2.5
    """
    return Percentile(axis=axis, method=method, keepdims=keepdims)(x, q)


class Nanpercentile(Nanquantile):
    scale = 100.0


def nanpercentile(
    x: Any, q: Any, axis: Any = None, method: str = "linear", keepdims: bool = False
) -> Any:
    """`percentile` ignoring NaNs.

    Example:
        >>> lamina.ops.nanpercentile(np.array([1.0, np.nan, 3.0]), 50)  # 2.0
    """
    return Nanpercentile(axis=axis, method=method, keepdims=keepdims)(x, q)


class Histogram(Op):
    def __init__(self, bins: int = 10, range: Any = None, name: str | None = None):
        super().__init__(name=name)
        self.bins = check_int("histogram", bins, "bins", minimum=1)
        if range is not None:
            ok = (
                isinstance(range, (tuple, list))
                and len(range) == 2
                and all(isinstance(v, numbers.Real) for v in range)
            )
            if not ok or range[0] > range[1]:
                raise ValueError(
                    "`histogram`: argument `range` must be None or a pair (min, max) of "
                    f"numbers with min <= max. Received: range={range!r}"
                )
            range = (float(range[0]), float(range[1]))
        self.range = range

    def _check(self, x: Any) -> str:
        check_rank(self.op_name, static_shape(x), (1,))
        return float_dtype(dtypes.dtype_of(x))

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        dtype = self._check(x)
        return SymbolicTensor((self.bins,), "int32"), SymbolicTensor((self.bins + 1,), dtype)

    def call(self, x: Any) -> tuple[Any, Any]:
        dtype = self._check(x)
        counts, edges = backend().numpy.histogram(to_tensor(x, dtype), self.bins, self.range)
        return cast(counts, "int32"), cast(edges, dtype)


def histogram(x: Any, bins: int = 10, range: Any = None) -> tuple[Any, Any]:
    """Counts of 1-D `x` in `bins` equal-width bins, and the `bins + 1` bin edges.

    Args:
        x: a 1-D tensor.
        bins: the number of bins.
        range: (min, max) of the binned interval; by default that of `x`. Values outside it
            are not counted; the last bin includes its right edge.

    Returns:
        A tuple (counts as int32, edges as a float tensor).

    Example:
        >>> lamina.ops.histogram(np.array([0.0, 1.0, 1.0, 2.0]), bins=2)  # [1, 3], [0, 1, 2]
    """
    return Histogram(bins=bins, range=range)(x)


class Bincount(Op):
    def __init__(self, minlength: int = 0, sparse: bool = False, name: str | None = None):
        super().__init__(name=name)
        self.minlength = check_int("bincount", minlength, "minlength", minimum=0)
        self.sparse = False
        if sparse:
            raise ValueError("`bincount`: `sparse=True` is not supported. Received: sparse=True")

    def _check(self, x: Any, weights: Any) -> str:
        shape = static_shape(x)
        check_rank(self.op_name, shape, (1, 2))
        x_dtype = dtypes.dtype_of(x)
        if x_dtype not in dtypes.INTS:
            raise TypeError(
                f"`{self.op_name}`: argument `x` must have an integer dtype. "
                f"Received: x.dtype={x_dtype}"
            )
        if weights is None:
            return "int32"
        w_shape = static_shape(weights)
        if len(w_shape) != len(shape) or any(
            a is not None and b is not None and a != b for a, b in zip(w_shape, shape)
        ):
            raise ValueError(
                f"`{self.op_name}`: argument `weights` must have the shape of `x`. "
                f"Received: weights.shape={w_shape}, x.shape={shape}"
            )
        return accumulating_dtype(dtypes.dtype_of(weights))

    def compute_output_spec(self, x: Any, weights: Any = None) -> SymbolicTensor:
        dtype = self._check(x, weights)
        return SymbolicTensor(static_shape(x)[:-1] + (None,), dtype)

    def call(self, x: Any, weights: Any = None) -> Any:
        dtype = self._check(x, weights)
        x = to_tensor(x)
        if weights is not None:
            weights = to_tensor(weights, dtype)
        return cast(backend().numpy.bincount(x, weights, self.minlength), dtype)


def bincount(x: Any, weights: Any = None, minlength: int = 0, sparse: bool = False) -> Any:
    """Count occurrences of each value in a non-negative int tensor.

    Args:
        x: a 1-D int tensor, or 2-D to count each row separately.
        weights: optional weights of `x`'s shape, summed instead of counting ones.
        minlength: the least length of the output's last axis.
        sparse: must be False (sparse outputs are not supported).

    Returns:
        Counts as int32 (or weighted sums, in `weights`' dtype) of length
        ``max(max(x) + 1, minlength)``.

    Example:
        >>> lamina.ops.bincount(np.array([0, 1, 1, 3]))  # [1, 2, 0, 1]
    """
    return Bincount(minlength=minlength, sparse=sparse)(x, weights)


class Corrcoef(Op):
    def _check(self, x: Any) -> str:
        check_rank(self.op_name, static_shape(x), (1, 2))
        return float_dtype(dtypes.dtype_of(x))

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        dtype = self._check(x)
        shape = static_shape(x)
        return SymbolicTensor(() if len(shape) == 1 else (shape[0], shape[0]), dtype)

    def call(self, x: Any) -> Any:
        return backend().numpy.corrcoef(to_tensor(x, self._check(x)))


def corrcoef(x: Any) -> Any:
    """Pearson correlation coefficients of the rows (variables) of a 1-D or 2-D tensor.

    Example:
        >>> lamina.ops.corrcoef(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]))  # [[1, -1], ...]
    """
    return Corrcoef()(x)


class Digitize(Op):
    def _check(self, x: Any, bins: Any) -> None:
        check_rank(self.op_name, static_shape(bins), (1,), "bins")
        for arg, value in (("x", x), ("bins", bins)):
            if dtypes.dtype_of(value) in dtypes.COMPLEXES + ("string",):
                raise TypeError(
                    f"`{self.op_name}`: argument `{arg}` must be real. "
                    f"Received: {arg}.dtype={dtypes.dtype_of(value)}"
                )

    def compute_output_spec(self, x: Any, bins: Any) -> SymbolicTensor:
        self._check(x, bins)
        return SymbolicTensor(static_shape(x), "int32")

    def call(self, x: Any, bins: Any) -> Any:
        self._check(x, bins)
        x, bins = promote(self.op_name, x, bins)
        # With increasing bins, the bin of v is the count of edges <= v.
        return cast(backend().numpy.searchsorted(bins, x, "right"), "int32")


def digitize(x: Any, bins: Any) -> Any:
    """Index of the bin of each element: ``i`` with ``bins[i-1] <= x < bins[i]``, as int32.

    Args:
        x: input tensor.
        bins: a 1-D increasing tensor of bin edges.

    Example:
        >>> lamina.ops.digitize(np.array([0.5, 1.5, 3.0]), np.array([1.0, 2.0]))  # [0, 1, 2]
    """
    return Digitize()(x, bins)
