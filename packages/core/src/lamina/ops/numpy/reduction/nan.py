"""NaN-ignoring reductions; on int and bool inputs they equal the plain ones."""

from __future__ import annotations

from typing import Any

from lamina.ops import composites, dtypes
from lamina.ops.composites import composite, pick
from lamina.ops.dispatch import backend
from lamina.ops.numpy.reduction._common import (
    AccumulatingReduction,
    ArgReduction,
    ExtremumReduction,
    FloatReduction,
    is_inexact,
)

__all__ = [
    "nanargmax",
    "nanargmin",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
]


class Nansum(AccumulatingReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nansum")(x, axes, self.keepdims)
        return backend().numpy.sum(x, axes, self.keepdims)


def nansum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Sum over `axis` treating NaNs as zero.

    Example:
        >>> lamina.ops.nansum(np.array([1.0, np.nan, 2.0]))  # 3.0
    """
    return Nansum(axis=axis, keepdims=keepdims)(x)


class Nanprod(AccumulatingReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nanprod")(x, axes, self.keepdims)
        return backend().numpy.prod(x, axes, self.keepdims)


def nanprod(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Product over `axis` treating NaNs as one.

    Example:
        >>> lamina.ops.nanprod(np.array([2.0, np.nan, 3.0]))  # 6.0
    """
    return Nanprod(axis=axis, keepdims=keepdims)(x)


class Nanmean(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return composite("numpy", "nanmean")(x, axes, self.keepdims)


def nanmean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Mean over `axis` ignoring NaNs (NaN where every element is NaN).

    Example:
        >>> lamina.ops.nanmean(np.array([1.0, np.nan, 3.0]))  # 2.0
    """
    return Nanmean(axis=axis, keepdims=keepdims)(x)


class Nanmax(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nanmax")(x, axes, self.keepdims)
        return backend().numpy.max(x, axes, self.keepdims)


def nanmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Maximum over `axis` ignoring NaNs (NaN where every element is NaN).

    Example:
        >>> lamina.ops.nanmax(np.array([1.0, np.nan, 3.0]))  # 3.0
    """
    return Nanmax(axis=axis, keepdims=keepdims)(x)


class Nanmin(ExtremumReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nanmin")(x, axes, self.keepdims)
        return backend().numpy.min(x, axes, self.keepdims)


def nanmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Minimum over `axis` ignoring NaNs (NaN where every element is NaN).

    Example:
        >>> lamina.ops.nanmin(np.array([1.0, np.nan, 3.0]))  # 1.0
    """
    return Nanmin(axis=axis, keepdims=keepdims)(x)


class Nanstd(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return pick(backend().numpy, "nanstd", composites.nanstd)(x, axes, self.keepdims)


def nanstd(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population standard deviation over `axis` ignoring NaNs.

    Example:
        >>> lamina.ops.nanstd(np.array([1.0, np.nan, 3.0]))  # 1.0
    """
    return Nanstd(axis=axis, keepdims=keepdims)(x)


class Nanvar(FloatReduction):
    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return pick(backend().numpy, "nanvar", composites.nanvar)(x, axes, self.keepdims)


def nanvar(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population variance over `axis` ignoring NaNs.

    Example:
        >>> lamina.ops.nanvar(np.array([1.0, np.nan, 3.0]))  # 1.0
    """
    return Nanvar(axis=axis, keepdims=keepdims)(x)


class Nanargmax(ArgReduction):
    def compute(self, x: Any, axis: int | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nanargmax")(x, axis, self.keepdims)
        return backend().numpy.argmax(x, axis, self.keepdims)


def nanargmax(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Index of the maximum along `axis` ignoring NaNs, as int32 (-1 for all-NaN slices).

    Example:
        >>> lamina.ops.nanargmax(np.array([1.0, np.nan, 3.0]))  # 2
    """
    return Nanargmax(axis=axis, keepdims=keepdims)(x)


class Nanargmin(ArgReduction):
    def compute(self, x: Any, axis: int | None) -> Any:
        if is_inexact(dtypes.dtype_of(x)):
            return composite("numpy", "nanargmin")(x, axis, self.keepdims)
        return backend().numpy.argmin(x, axis, self.keepdims)


def nanargmin(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Index of the minimum along `axis` ignoring NaNs, as int32 (-1 for all-NaN slices).

    Example:
        >>> lamina.ops.nanargmin(np.array([1.0, np.nan, 3.0]))  # 0
    """
    return Nanargmin(axis=axis, keepdims=keepdims)(x)
