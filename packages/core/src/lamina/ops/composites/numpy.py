"""`numpy` composites: element-wise, reduction, product and creation ops built on primitives.

Arguments arrive as the protocol's `NumpyOps` members receive them (converted, promoted,
canonical axes); results keep the dtypes the protocol states.
"""

from __future__ import annotations

import math
from typing import Any

from lamina.backend import Capability
from lamina.ops.composites._base import Tensor, backend, const, dtype_of
from lamina.ops.dtypes import COMPLEXES, FLOATS

Axes = tuple[int, ...] | None


def _ndim(x: Tensor) -> int:
    return len(backend().core.shape(x))


def _along(axis: int, ndim: int, key: slice) -> tuple[slice, ...]:
    """An indexing key taking `key` along `axis` and everything elsewhere."""
    return (slice(None),) * axis + (key,) + (slice(None),) * (ndim - axis - 1)


# --- element-wise ---------------------------------------------------------------------------
def divide_no_nan(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    zero = n.equal(x2, const(x2, 0))
    safe = n.where(zero, const(x2, 1), x2)
    return n.where(zero, const(x1, 0), n.divide(x1, safe))


def _nan_aware(x1: Tensor, x2: Tensor, pick_one: Any) -> Tensor:
    n = backend().numpy
    if dtype_of(x1) not in FLOATS:
        return pick_one(x1, x2)
    return n.where(n.isnan(x1), x2, n.where(n.isnan(x2), x1, pick_one(x1, x2)))


def fmax(x1: Tensor, x2: Tensor) -> Tensor:
    return _nan_aware(x1, x2, backend().numpy.maximum)


def fmin(x1: Tensor, x2: Tensor) -> Tensor:
    return _nan_aware(x1, x2, backend().numpy.minimum)


def square(x: Tensor) -> Tensor:
    return backend().numpy.multiply(x, x)


def reciprocal(x: Tensor) -> Tensor:
    return backend().numpy.divide(const(x, 1), x)


def deg2rad(x: Tensor) -> Tensor:
    return x * const(x, math.pi / 180)


def rad2deg(x: Tensor) -> Tensor:
    return x * const(x, 180 / math.pi)


def logaddexp2(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    larger = n.maximum(x1, x2)
    gap = n.negative(n.absolute(x1 - x2))
    tail = n.log1p(exp2(gap)) * const(x1, 1 / math.log(2))
    # Equal inputs (infinities included) give x + 1 without computing inf - inf.
    return n.where(n.equal(x1, x2), x1 + const(x1, 1), larger + tail)


def heaviside(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    step = n.where(
        n.less(x1, const(x1, 0)), const(x1, 0), n.where(x1 > const(x1, 0), const(x1, 1), x2)
    )
    return n.where(n.isnan(x1), x1, step)


def _close(x1: Tensor, x2: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    b = backend()
    n = b.numpy
    if dtype_of(x1) not in FLOATS + COMPLEXES:  # compare integers as floats, as NumPy does
        wide = "float64" if b.supports(Capability.FLOAT64) else "float32"
        x1, x2 = b.core.cast(x1, wide), b.core.cast(x2, wide)
    gap, scale = n.absolute(x1 - x2), n.absolute(x2)
    near = n.less_equal(gap, const(gap, atol) + const(gap, rtol) * scale)
    finite = n.logical_and(n.isfinite(x1), n.isfinite(x2))
    out = n.where(finite, near, n.equal(x1, x2))
    if equal_nan:
        out = n.logical_or(out, n.logical_and(n.isnan(x1), n.isnan(x2)))
    return out


def isclose(x1: Tensor, x2: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    return _close(x1, x2, rtol, atol, equal_nan)


def allclose(x1: Tensor, x2: Tensor, rtol: float, atol: float, equal_nan: bool) -> Tensor:
    return backend().numpy.all(_close(x1, x2, rtol, atol, equal_nan), None, False)


def isneginf(x: Tensor) -> Tensor:
    n = backend().numpy
    return n.logical_and(n.isinf(x), n.less(x, const(x, 0)))


def isposinf(x: Tensor) -> Tensor:
    n = backend().numpy
    return n.logical_and(n.isinf(x), n.greater(x, const(x, 0)))


def isreal(x: Tensor) -> Tensor:
    n = backend().numpy
    if dtype_of(x) in COMPLEXES:
        part = n.imag(x)
        return n.equal(part, const(part, 0))
    return n.equal(x, x) if dtype_of(x) not in FLOATS else n.logical_or(n.equal(x, x), n.isnan(x))


def logical_xor(x1: Tensor, x2: Tensor) -> Tensor:
    return backend().numpy.not_equal(x1, x2)


def sinc(x: Tensor) -> Tensor:
    n = backend().numpy
    zero = n.equal(x, const(x, 0))
    scaled = n.where(zero, const(x, 1), x) * const(x, math.pi)
    return n.where(zero, const(x, 1), n.divide(n.sin(scaled), scaled))


def nan_to_num(x: Tensor, nan: float, posinf: float, neginf: float) -> Tensor:
    n = backend().numpy
    x = n.where(n.isnan(x), const(x, nan), x)
    return n.where(isposinf(x), const(x, posinf), n.where(isneginf(x), const(x, neginf), x))


def clip(x: Tensor, x_min: Tensor | None, x_max: Tensor | None) -> Tensor:
    # minimum(maximum(...)): `x_max` wins where the bounds cross, as NumPy's clip does.
    n = backend().numpy
    if x_min is not None:
        x = n.maximum(x, x_min)
    return x if x_max is None else n.minimum(x, x_max)


def ldexp(x1: Tensor, x2: Tensor) -> Tensor:
    """``x1 * 2 ** x2``: the integer exponent `x2` cast to `x1`'s float dtype."""
    b = backend()
    return x1 * b.numpy.power(const(x1, 2), b.core.cast(x2, dtype_of(x1)))


# --- reductions -----------------------------------------------------------------------------
def std(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    n = backend().numpy
    return n.sqrt(n.var(x, axis, keepdims))


def count_nonzero(x: Tensor, axis: Axes = None) -> Tensor:
    b = backend()
    nonzero = b.core.cast(b.numpy.not_equal(x, const(x, 0)), "int32")
    return b.numpy.sum(nonzero, axis, False)


def average(x: Tensor, axis: int | None = None, weights: Tensor | None = None) -> Tensor:
    b = backend()
    n = b.numpy
    axes = None if axis is None else (axis,)
    if weights is None:
        return n.mean(x, axes, False)
    ndim = _ndim(x)
    if axis is not None and _ndim(weights) == 1 and ndim > 1:
        shape = [1] * ndim
        shape[axis] = -1
        weights = n.reshape(weights, tuple(shape))
    total = n.sum(x * weights, axes, False)
    return n.divide(total, n.sum(n.broadcast_to(weights, tuple(b.core.shape(x))), axes, False))


def _without_nan(x: Tensor, fill: float) -> Tensor:
    n = backend().numpy
    return n.where(n.isnan(x), const(x, fill), x)


def nansum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return backend().numpy.sum(_without_nan(x, 0), axis, keepdims)


def nanprod(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return backend().numpy.prod(_without_nan(x, 1), axis, keepdims)


def nanmean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    b = backend()
    count = b.numpy.sum(
        b.core.cast(b.numpy.logical_not(b.numpy.isnan(x)), dtype_of(x)), axis, keepdims
    )
    return b.numpy.divide(nansum(x, axis, keepdims), count)


def nancumsum(x: Tensor, axis: int | None = None) -> Tensor:
    return backend().numpy.cumsum(_without_nan(x, 0), axis)


def nancumprod(x: Tensor, axis: int | None = None) -> Tensor:
    return backend().numpy.cumprod(_without_nan(x, 1), axis)


def diff(a: Tensor, n: int = 1, axis: int = -1) -> Tensor:
    ops = backend().numpy
    ndim = _ndim(a)
    axis = axis % ndim
    for _ in range(n):
        later, earlier = (
            a[_along(axis, ndim, slice(1, None))],
            a[_along(axis, ndim, slice(None, -1))],
        )
        a = ops.not_equal(later, earlier) if dtype_of(a) == "bool" else later - earlier
    return a


def ptp(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Range over `axis`: maximum minus minimum."""
    numpy = backend().numpy
    return numpy.max(x, axis, keepdims) - numpy.min(x, axis, keepdims)


def nanvar(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Population variance over `axis` of the elements that are not NaN."""
    b = backend()
    numpy, dtype = b.numpy, dtype_of(x)
    nan = numpy.isnan(x)
    centered = numpy.where(nan, const(x, 0), x - nanmean(x, axis, True))
    count = numpy.sum(b.core.cast(numpy.logical_not(nan), dtype), axis, keepdims)
    return numpy.sum(centered * centered, axis, keepdims) / count


def nanstd(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Population standard deviation over `axis` of the elements that are not NaN."""
    return backend().numpy.sqrt(nanvar(x, axis, keepdims))


def argpartition(x: Tensor, kth: int, axis: int = -1) -> Tensor:
    # A full stable sort is one valid partition around every kth.
    return backend().numpy.argsort(x, axis)


def _resized(x: Tensor, size: int, axis: int, fill: Tensor) -> Tensor:
    """`x` cut to `size` along `axis`, or extended with `fill` (broadcast) to it."""
    n = backend().numpy
    shape = list(backend().core.shape(x))
    have = shape[axis]
    if have >= size:
        return x[_along(axis, len(shape), slice(0, size))]
    shape[axis] = size - have
    return n.concatenate([x, n.broadcast_to(fill, tuple(shape))], axis)


def unique(
    x: Tensor,
    return_inverse: bool,
    return_counts: bool,
    axis: int | None,
    size: int | None,
    fill_value: Any,
) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """`sorted_unique`, its inverse shaped as NumPy shapes it, and `size` applied: values
    cut or padded with `fill_value` (their minimum when None), counts padded with 0."""
    b = backend()
    n = b.numpy
    values, inverse, counts = n.sorted_unique(x, axis, size)
    inverse = n.reshape(inverse, tuple(b.core.shape(x)) if axis is None else (-1,))
    if size is not None:
        ax = 0 if axis is None else axis
        rank = len(b.core.shape(values))
        empty = b.core.shape(values)[ax] == 0
        least = const(x, 0) if empty else values[_along(ax, rank, slice(0, 1))]
        values = _resized(values, size, ax, least)
        counts = _resized(counts, size, 0, const(counts, 0))
        if fill_value is not None:
            # Padded slots count 0 (a backend may have padded them already, with the least).
            along = (1,) * ax + (size,) + (1,) * (rank - ax - 1)
            real = n.reshape(n.greater(counts, const(counts, 0)), along)
            values = n.where(real, values, const(x, fill_value))
    return values, inverse if return_inverse else None, counts if return_counts else None


# --- products -------------------------------------------------------------------------------
def inner(x1: Tensor, x2: Tensor) -> Tensor:
    d1, d2 = _ndim(x1), _ndim(x2)
    if d1 == 0 or d2 == 0:
        return x1 * x2
    return backend().numpy.tensordot(x1, x2, ((d1 - 1,), (d2 - 1,)))


def outer(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    return n.reshape(x1, (-1, 1)) * n.reshape(x2, (1, -1))


def kron(x1: Tensor, x2: Tensor) -> Tensor:
    b = backend()
    n = b.numpy
    s1, s2 = tuple(b.core.shape(x1)), tuple(b.core.shape(x2))
    rank = max(len(s1), len(s2))
    s1, s2 = (1,) * (rank - len(s1)) + s1, (1,) * (rank - len(s2)) + s2
    a = n.reshape(x1, tuple(d for p in s1 for d in (p, 1)))
    c = n.reshape(x2, tuple(d for p in s2 for d in (1, p)))
    return n.reshape(a * c, tuple(p * q for p, q in zip(s1, s2, strict=True)))


def vdot(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    if dtype_of(x1) in COMPLEXES:
        x1 = n.conjugate(x1)
    return n.sum(n.reshape(x1, (-1,)) * n.reshape(x2, (-1,)), None, False)


def trace(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    b = backend()
    diagonal = b.numpy.diagonal(x, offset, axis1, axis2)
    total = b.numpy.sum(diagonal, (_ndim(diagonal) - 1,), False)
    return b.core.cast(total, dtype_of(x))


def trapezoid(y: Tensor, x: Tensor | None, dx: float, axis: int) -> Tensor:
    b = backend()
    n, ndim = b.numpy, _ndim(y)
    later, earlier = y[_along(axis, ndim, slice(1, None))], y[_along(axis, ndim, slice(None, -1))]
    if x is None:
        widths: Tensor = const(y, dx)
    elif _ndim(x) == 1:
        shape = [1] * ndim
        shape[axis] = -1
        widths = n.reshape(diff(x, 1, 0), tuple(shape))
    else:
        widths = diff(x, 1, axis)
    total = n.sum(widths * (later + earlier), (axis,), False) * const(y, 0.5)
    return b.core.cast(total, dtype_of(y))


def vander(x: Tensor, N: int, increasing: bool) -> Tensor:
    b = backend()
    dtype = dtype_of(x)
    powers = b.numpy.arange(0, N, 1, dtype)
    if not increasing:
        powers = b.numpy.flip(powers, (0,))
    return b.numpy.power(b.numpy.reshape(x, (-1, 1)), b.numpy.reshape(powers, (1, -1)))


# --- creation and triangles -----------------------------------------------------------------
def tril_mask(rows: int, cols: int, k: int) -> Tensor:
    """Bool ``(rows, cols)``: true on and below diagonal `k`."""
    n = backend().numpy
    i = n.reshape(n.arange(0, rows, 1, "int32"), (-1, 1))
    j = n.reshape(n.arange(0, cols, 1, "int32"), (1, -1))
    return n.greater_equal(i + const(i, k), j)


def tri(N: int, M: int, k: int, dtype: str) -> Tensor:
    return backend().core.cast(tril_mask(N, M, k), dtype)


def tril(x: Tensor, k: int) -> Tensor:
    shape = backend().core.shape(x)
    return backend().numpy.where(tril_mask(shape[-2], shape[-1], k), x, const(x, 0))


def triu(x: Tensor, k: int) -> Tensor:
    shape = backend().core.shape(x)
    return backend().numpy.where(tril_mask(shape[-2], shape[-1], k - 1), const(x, 0), x)


def logspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, base: float, axis: int
) -> Tensor:
    b = backend()
    samples = b.numpy.linspace(start, stop, num, endpoint, axis)[0]
    return b.numpy.power(const(samples, base), samples)


def meshgrid(xs: list[Tensor], indexing: str) -> list[Tensor]:
    b = backend()
    n = b.numpy
    sizes = [b.core.shape(x)[0] for x in xs]
    order = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        order[0], order[1] = 1, 0
    full = tuple(sizes[i] for i in order)
    grids = []
    for i, x in enumerate(xs):
        shape = [1] * len(xs)
        shape[order.index(i)] = -1
        grids.append(n.broadcast_to(n.reshape(x, tuple(shape)), full))
    return grids


def size(x: Tensor) -> Tensor:
    """The element count as an int32 scalar, for a shape with dynamic dims (traced graphs)."""
    b = backend()
    dims = [b.core.convert_to_tensor(d, "int32") for d in b.core.shape(x)]
    return b.numpy.prod(b.numpy.stack(dims, 0)) if dims else const(None, 1, "int32")


# --- more element-wise and reductions -------------------------------------------------------
def exp2(x: Tensor) -> Tensor:
    return backend().numpy.power(const(x, 2), x)


def log2(x: Tensor) -> Tensor:
    return backend().numpy.log(x) * const(x, 1 / math.log(2))


def log10(x: Tensor) -> Tensor:
    return backend().numpy.log(x) * const(x, 1 / math.log(10))


def angle(x: Tensor) -> Tensor:
    n = backend().numpy
    if dtype_of(x) in COMPLEXES:
        return n.arctan2(n.imag(x), n.real(x))
    # atan2(0, x): 0, or pi for negative x and -0.0, as NumPy gives.
    return n.arctan2(n.broadcast_to(const(x, 0), tuple(backend().core.shape(x))), x)


def _nan_extremum(reduce: Any, fill: float, x: Tensor, axis: Axes, keepdims: bool) -> Tensor:
    n = backend().numpy
    nan = n.isnan(x)
    out = reduce(n.where(nan, const(x, fill), x), axis, keepdims)
    return n.where(n.all(nan, axis, keepdims), const(x, math.nan), out)


def nanmax(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _nan_extremum(backend().numpy.max, -math.inf, x, axis, keepdims)


def nanmin(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return _nan_extremum(backend().numpy.min, math.inf, x, axis, keepdims)


def median(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return backend().numpy.quantile(x, const(x, 0.5), axis, "linear", keepdims)


def nanmedian(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    return backend().numpy.nanquantile(x, const(x, 0.5), axis, "linear", keepdims)


def zeros(shape: tuple[int, ...], dtype: str) -> Tensor:
    return backend().numpy.full(shape, const(None, 0, dtype), dtype)


def ones(shape: tuple[int, ...], dtype: str) -> Tensor:
    return backend().numpy.full(shape, const(None, 1, dtype), dtype)


def eye(N: int, M: int, k: int, dtype: str) -> Tensor:
    n = backend().numpy
    rows = n.reshape(n.arange(0, N, 1, "int32"), (-1, 1))
    cols = n.reshape(n.arange(0, M, 1, "int32"), (1, -1))
    return backend().core.cast(n.equal(cols - rows, const(rows, k)), dtype)


def lcm(x1: Tensor, x2: Tensor) -> Tensor:
    n = backend().numpy
    g = n.gcd(x1, x2)
    zero = n.equal(g, const(g, 0))
    safe = n.where(zero, const(g, 1), g)
    return n.where(zero, const(g, 0), n.absolute(n.floor_divide(x1, safe) * x2))


def cbrt(x: Tensor) -> Tensor:
    n = backend().numpy
    # The real cube root keeps the sign: |x| ** (1/3), signed.
    return n.sign(x) * n.power(n.absolute(x), const(x, 1 / 3))


def _nanarg(reduce: Any, fill: float, x: Tensor, axis: int | None, keepdims: bool) -> Tensor:
    """Index of the extremum ignoring NaN; -1 where a slice is all NaN."""
    b = backend()
    n = b.numpy
    nan = n.isnan(x)
    index = b.core.cast(reduce(n.where(nan, const(x, fill), x), axis, keepdims), "int32")
    everywhere = n.all(nan, None if axis is None else (axis,), keepdims)
    return n.where(everywhere, const(index, -1), index)


def nanargmax(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _nanarg(backend().numpy.argmax, -math.inf, x, axis, keepdims)


def nanargmin(x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
    return _nanarg(backend().numpy.argmin, math.inf, x, axis, keepdims)
