"""`image` composites: filters, sampling and patches built on the primitives.

Images reaching these functions are batched float tensors (rank 4, or 5 for volumes);
``channels_first`` says where their channel axis is.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from lamina.backend import Capability
from lamina.ops.composites._base import Tensor, backend, const, dtype_of
from lamina.ops.composites.numpy import clip, meshgrid
from lamina.ops.dtypes import INTS

_DIFF = (-1.0, 0.0, 1.0)
_SMOOTH = (1.0, 2.0, 1.0)


def crop(x: Tensor, begin: tuple[int, ...], size: tuple[int, ...]) -> Tensor:
    """The slice ``x[begin[i]:begin[i] + size[i]]`` along every axis."""
    return x[tuple(slice(b, b + s) for b, s in zip(begin, size, strict=True))]


def correlate_axes(x: Tensor, kernels: tuple[tuple[int, tuple[float, ...]], ...]) -> Tensor:
    """Valid 1-D correlation of float `x` with each ``(axis, taps)`` in turn."""
    ndim = len(backend().core.shape(x))
    for axis, taps in kernels:
        n = backend().core.shape(x)[axis] - len(taps) + 1
        out = None
        for i, t in enumerate(taps):
            window = (slice(None),) * axis + (slice(i, i + n),) + (slice(None),) * (ndim - axis - 1)
            term = x[window] * const(x, t)
            out = term if out is None else out + term
        x = out
    return x


def saturate_cast(x: Tensor, dtype: str) -> Tensor:
    """Cast float `x` to `dtype`, rounding and clipping to its range when it is an int."""
    import numpy as np

    b = backend()
    if dtype == "bool":
        return b.numpy.not_equal(b.numpy.round(x, 0), const(x, 0))
    if dtype in INTS:
        info = np.iinfo(dtype)
        low, high = float(info.min), float(info.max)
        if np.finfo(dtype_of(x)).max < high:  # e.g. float16 cannot hold int32's top
            high = float(np.finfo(dtype_of(x)).max)
        x = clip(b.numpy.round(x, 0), const(x, low), const(x, high))
    return b.core.cast(x, dtype)


def _fix(idx: Tensor, size: int, mode: str) -> tuple[Tensor, Tensor | None]:
    """Neighbour indices mapped into ``[0, size)`` by `mode`, and a validity mask."""
    n = backend().numpy
    if mode in ("constant", "nearest"):
        clipped = clip(idx, const(idx, 0), const(idx, size - 1))
        if mode == "nearest":
            return clipped, None
        return clipped, n.logical_and(idx >= const(idx, 0), idx < const(idx, size))
    if mode == "wrap":
        return n.mod(idx, const(idx, size)), None
    if mode == "mirror":
        if size == 1:
            return idx * const(idx, 0), None
        m = n.mod(idx, const(idx, 2 * size - 2))
        return n.where(m < const(m, size), m, const(m, 2 * size - 2) - m), None
    m = n.mod(idx, const(idx, 2 * size))  # reflect: the edge pixel repeats
    return n.where(m < const(m, size), m, const(m, 2 * size - 1) - m), None


def _interp(
    table: Tensor,
    sizes: tuple[int, ...],
    coords: list[Tensor],
    base: Tensor | None,
    order: int,
    mode: str,
    cval: float,
) -> Tensor:
    """Interpolate rows of `table` ``(prod(sizes) * batch, C)`` at `coords` -> coords + (C,)."""
    b = backend()
    n = b.numpy
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    taps: list[list[tuple[Tensor, Tensor | None]]] = []
    for c in coords:
        if order == 0:
            taps.append([(b.core.cast(n.round(c, 0), "int32"), None)])
        else:
            lo = n.floor(c)
            frac = c - lo
            lo_i = b.core.cast(lo, "int32")
            taps.append([(lo_i, const(frac, 1) - frac), (lo_i + const(lo_i, 1), frac)])
    out = None
    for combo in itertools.product(*taps):
        flat, weight, valid = base, None, None
        for (idx, w), size, stride in zip(combo, sizes, strides, strict=True):
            fixed, ok = _fix(idx, size, mode)
            step = fixed * const(fixed, stride)
            flat = step if flat is None else flat + step
            if w is not None:
                weight = w if weight is None else weight * w
            if ok is not None:
                valid = ok if valid is None else n.logical_and(valid, ok)
        vals = n.take(table, flat, 0)
        if valid is not None:
            vals = n.where(valid[..., None], vals, const(vals, cval))
        if weight is not None:
            vals = vals * weight[..., None]
        out = vals if out is None else out + vals
    return out


def map_coordinates(
    inputs: Tensor, coordinates: Tensor, order: int, fill_mode: str, fill_value: float
) -> Tensor:
    """Sample float `inputs` at `coordinates` (shape ``(inputs.ndim, *out)``), order 0 or 1."""
    shape = tuple(backend().core.shape(inputs))
    coords = [coordinates[i, ...] for i in range(len(shape))]
    table = backend().numpy.reshape(inputs, (-1, 1))
    return _interp(table, shape, coords, None, order, fill_mode, fill_value)[..., 0]


def _channels_last(images: Tensor, channels_first: bool) -> Tensor:
    return backend().numpy.transpose(images, (0, 2, 3, 1)) if channels_first else images


def _restore_layout(images: Tensor, channels_first: bool) -> Tensor:
    return backend().numpy.transpose(images, (0, 3, 1, 2)) if channels_first else images


def _sample(images: Tensor, ys: Tensor, xs: Tensor, order: int, mode: str, cval: float) -> Tensor:
    """Sample NHWC `images` at per-batch coordinates ``(B or 1, H', W')``."""
    b = backend()
    batch, h, w, c = b.core.shape(images)
    base = b.numpy.reshape(
        b.numpy.arange(0, batch, 1, "int32") * const(ys, h * w, "int32"), (-1, 1, 1)
    )
    table = b.numpy.reshape(images, (-1, c))
    return _interp(table, (h, w), [ys, xs], base, order, mode, cval)


def _grid(h: int, w: int, dtype: str) -> list[Tensor]:
    n = backend().numpy
    return meshgrid([n.arange(0, h, 1, dtype), n.arange(0, w, 1, dtype)], "ij")


def affine_transform(
    images: Tensor,
    transform: Tensor,
    order: int,
    fill_mode: str,
    fill_value: float,
    channels_first: bool,
) -> Tensor:
    """Resample batched float `images` by projective transforms ``(batch, 8)``."""
    x = _channels_last(images, channels_first)
    shape = backend().core.shape(x)
    ys, xs = _grid(shape[1], shape[2], dtype_of(x))
    t = [transform[:, i, None, None] for i in range(8)]
    k = t[6] * xs + t[7] * ys + const(xs, 1)
    x_in = (t[0] * xs + t[1] * ys + t[2]) / k
    y_in = (t[3] * xs + t[4] * ys + t[5]) / k
    return _restore_layout(_sample(x, y_in, x_in, order, fill_mode, fill_value), channels_first)


def elastic_transform(
    images: Tensor,
    alpha: float,
    kernel: tuple[float, ...],
    order: int,
    fill_mode: str,
    fill_value: float,
    seed: int,
    channels_first: bool,
) -> Tensor:
    """Displace batched float `images` by a smoothed normal field drawn from `seed`."""
    from lamina.random.seed_generator import draw_seed

    bk = backend()
    x = _channels_last(images, channels_first)
    batch, h, w, _ = bk.core.shape(x)
    dtype = dtype_of(x)
    noise = bk.random.normal(
        (2, batch, h, w), 0.0, 1.0, dtype, draw_seed("elastic_transform", seed)
    )
    lo = (len(kernel) - 1) // 2
    pads = (lo, len(kernel) - 1 - lo)
    noise = bk.numpy.pad(noise, ((0, 0), (0, 0), pads, pads), const(noise, 0))
    d = correlate_axes(noise, ((2, kernel), (3, kernel))) * const(noise, alpha)
    ys, xs = _grid(h, w, dtype)
    out = _sample(x, ys + d[0, ...], xs + d[1, ...], order, fill_mode, fill_value)
    return _restore_layout(out, channels_first)


def extract_patches(
    x: Tensor,
    size: tuple[int, ...],
    strides: tuple[int, ...],
    dilation_rate: tuple[int, ...],
    channels_first: bool,
) -> Tensor:
    """Valid patches of batched `x` (already padded), flattened into the channel axis."""
    b = backend()
    n = b.numpy
    rank = len(b.core.shape(x))
    last = (0, *range(2, rank), 1)
    if channels_first:
        x = n.transpose(x, last)
    spatial = b.core.shape(x)[1:-1]
    outs = [
        (m - (k - 1) * d - 1) // s + 1
        for m, k, s, d in zip(spatial, size, strides, dilation_rate, strict=True)
    ]
    pieces = []
    for offs in itertools.product(*(range(k) for k in size)):
        window = tuple(
            slice(o * d, o * d + (m - 1) * s + 1, s)
            for o, d, s, m in zip(offs, dilation_rate, strides, outs, strict=True)
        )
        pieces.append(x[(slice(None), *window, slice(None))])
    out = n.reshape(n.stack(pieces, rank - 1), (-1, *outs, len(pieces) * b.core.shape(x)[-1]))
    return n.transpose(out, (0, rank - 1, *range(1, rank - 1))) if channels_first else out


def sobel_edges(images: Tensor, channels_first: bool) -> Tensor:
    """Sobel ``[dy, dx]`` of batched, already reflect-padded float images (last axis 2)."""
    b = backend()
    height, width = (2, 3) if channels_first else (1, 2)
    correlate: Any = pick_correlate()
    dy = correlate(images, ((height, _DIFF), (width, _SMOOTH)))
    dx = correlate(images, ((height, _SMOOTH), (width, _DIFF)))
    return b.numpy.stack([dy, dx], 4)


def pick_correlate() -> Any:
    """The backend's own `correlate_axes` where it has one, else the composite."""
    return getattr(backend().image, "correlate_axes", correlate_axes)


def ssim(
    x1: Tensor, x2: Tensor, kernel: tuple[float, ...], c1: float, c2: float, channels_first: bool
) -> Tensor:
    """Mean SSIM per image of batched float images, valid gaussian window `kernel`."""
    b = backend()
    height, width = (2, 3) if channels_first else (1, 2)
    correlate = pick_correlate()

    def blur(z: Tensor) -> Tensor:
        return correlate(z, ((height, kernel), (width, kernel)))

    mu1, mu2 = blur(x1), blur(x2)
    mu12, mu11, mu22 = mu1 * mu2, mu1 * mu1, mu2 * mu2
    luminance = (2 * mu12 + c1) / (mu11 + mu22 + c1)
    cs = (2 * (blur(x1 * x2) - mu12) + c2) / (blur(x1 * x1) + blur(x2 * x2) - mu11 - mu22 + c2)
    return b.numpy.mean(luminance * cs, (1, 2, 3), False)


def perspective_coefficients(start_points: Tensor, end_points: Tensor) -> Tensor:
    """The 8 coefficients mapping `end_points` onto `start_points` (each ``(B, 4, 2)``).

    Solved in float64 where the backend has it (the 8x8 system is badly conditioned in
    float32 for large images).
    """
    b = backend()
    dtype = "float64" if b.supports(Capability.FLOAT64) else "float32"
    s, e = b.core.cast(start_points, dtype), b.core.cast(end_points, dtype)
    xe, ye, xs, ys = e[..., 0], e[..., 1], s[..., 0], s[..., 1]
    zero = b.numpy.full_like(xe, b.core.convert_to_tensor(0, dtype), dtype)
    one = b.numpy.full_like(xe, b.core.convert_to_tensor(1, dtype), dtype)
    rows_x = b.numpy.stack([xe, ye, one, zero, zero, zero, -xe * xs, -ye * xs], 2)
    rows_y = b.numpy.stack([zero, zero, zero, xe, ye, one, -xe * ys, -ye * ys], 2)
    a = b.numpy.concatenate([rows_x, rows_y], 1)
    rhs = b.numpy.concatenate([xs, ys], 1)
    return b.linalg.solve(a, rhs[..., None])[..., 0]
