"""NumPy: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

__all__ = [
    "affine_transform",
    "correlate_axes",
    "crop",
    "elastic_transform",
    "extract_patches",
    "map_coordinates",
    "pad",
    "resample_axes",
    "saturate_cast",
]


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = np.moveaxis(np.tensordot(w, x, axes=([1], [axis])), 0, axis)
    return x


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return np.pad(x, paddings, mode="constant", constant_values=constant_value)
    return np.pad(x, paddings, mode=mode)  # type: ignore[call-overload]


def crop(x: Tensor, begin: tuple[int, ...], size: tuple[int, ...]) -> Tensor:
    return x[tuple(slice(b, b + s) for b, s in zip(begin, size, strict=True))]


def correlate_axes(x: Tensor, kernels: tuple[tuple[int, tuple[float, ...]], ...]) -> Tensor:
    for axis, taps in kernels:
        n = x.shape[axis] - len(taps) + 1
        out = None
        for i, t in enumerate(taps):
            term = np.take(x, np.arange(i, i + n), axis=axis) * t
            out = term if out is None else out + term
        x = out
    return x


def saturate_cast(x: Tensor, dtype: DType) -> Tensor:
    target = to_numpy_dtype(dtype)
    if np.issubdtype(target, np.integer):
        info = np.iinfo(target)
        x = np.clip(np.round(x), info.min, info.max)
    elif target == np.bool_:
        x = np.round(x) != 0
    return np.asarray(x).astype(target)


def _fix(idx: Tensor, size: int, mode: str) -> tuple[Tensor, Tensor | None]:
    """Neighbour indices mapped into ``[0, size)`` by `mode`, and a validity mask."""
    if mode == "constant":
        return np.clip(idx, 0, size - 1), (idx >= 0) & (idx < size)
    if mode == "nearest":
        return np.clip(idx, 0, size - 1), None
    if mode == "wrap":
        return np.mod(idx, size), None
    if mode == "mirror":
        if size == 1:
            return np.zeros_like(idx), None
        m = np.mod(idx, 2 * size - 2)
        return np.where(m < size, m, 2 * size - 2 - m), None
    m = np.mod(idx, 2 * size)  # reflect: the edge pixel repeats
    return np.where(m < size, m, 2 * size - 1 - m), None


def _interp(
    table: Tensor,
    sizes: tuple[int, ...],
    coords: list[Tensor],
    base: Tensor | int,
    order: int,
    mode: str,
    cval: float,
) -> Tensor:
    """Interpolate rows of `table` ``(prod(sizes) * batch, C)`` at `coords` -> coords + (C,)."""
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    taps: list[list[tuple[Tensor, Tensor | None]]] = []
    for c in coords:
        if order == 0:
            taps.append([(np.round(c).astype(np.int64), None)])
        else:
            lo = np.floor(c)
            frac = c - lo
            lo_i = lo.astype(np.int64)
            taps.append([(lo_i, 1 - frac), (lo_i + 1, frac)])
    out = None
    for combo in itertools.product(*taps):
        flat, weight, valid = base, None, None
        for (idx, w), size, stride in zip(combo, sizes, strides, strict=True):
            fixed, ok = _fix(idx, size, mode)
            flat = flat + fixed * stride
            if w is not None:
                weight = w if weight is None else weight * w
            if ok is not None:
                valid = ok if valid is None else valid & ok
        vals = table[flat]
        if valid is not None:
            vals = np.where(valid[..., None], vals, np.asarray(cval, table.dtype))
        if weight is not None:
            vals = vals * weight[..., None]
        out = vals if out is None else out + vals
    return out


def map_coordinates(
    inputs: Tensor, coordinates: Tensor, order: int, fill_mode: str, fill_value: float
) -> Tensor:
    coords = [coordinates[i] for i in range(inputs.ndim)]
    out = _interp(inputs.reshape(-1, 1), inputs.shape, coords, 0, order, fill_mode, fill_value)
    return out[..., 0]


def _sample(images: Tensor, ys: Tensor, xs: Tensor, order: int, mode: str, cval: float) -> Tensor:
    """Sample NHWC `images` at per-batch coordinates ``(B or 1, H', W')``."""
    b, h, w, c = images.shape
    base = (np.arange(b) * (h * w)).reshape(b, 1, 1)
    return _interp(images.reshape(-1, c), (h, w), [ys, xs], base, order, mode, cval)


def _grid(h: int, w: int, dtype: Any) -> tuple[Tensor, Tensor]:
    return np.meshgrid(np.arange(h, dtype=dtype), np.arange(w, dtype=dtype), indexing="ij")


def affine_transform(
    images: Tensor,
    transform: Tensor,
    order: int,
    fill_mode: str,
    fill_value: float,
    channels_first: bool,
) -> Tensor:
    x = np.moveaxis(images, 1, -1) if channels_first else images
    ys, xs = _grid(x.shape[1], x.shape[2], x.dtype)
    t = [transform[:, i, None, None] for i in range(8)]
    k = t[6] * xs + t[7] * ys + 1
    x_in = (t[0] * xs + t[1] * ys + t[2]) / k
    y_in = (t[3] * xs + t[4] * ys + t[5]) / k
    out = _sample(x, y_in, x_in, order, fill_mode, fill_value)
    return np.moveaxis(out, -1, 1) if channels_first else out




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
    x = np.moveaxis(images, 1, -1) if channels_first else images
    b, h, w, _ = x.shape
    noise = np.random.default_rng(seed).standard_normal((2, b, h, w)).astype(x.dtype)
    lo = (len(kernel) - 1) // 2
    p = (lo, len(kernel) - 1 - lo)
    noise = np.pad(noise, ((0, 0), (0, 0), p, p))
    d = correlate_axes(noise, ((2, kernel), (3, kernel))) * alpha
    ys, xs = _grid(h, w, x.dtype)
    out = _sample(x, ys + d[0], xs + d[1], order, fill_mode, fill_value)
    return np.moveaxis(out, -1, 1) if channels_first else out


def extract_patches(
    x: Tensor,
    size: tuple[int, ...],
    strides: tuple[int, ...],
    dilation_rate: tuple[int, ...],
    channels_first: bool,
) -> Tensor:
    if channels_first:
        x = np.moveaxis(x, 1, -1)
    spatial = x.shape[1:-1]
    outs = [
        (n - (k - 1) * d - 1) // s + 1
        for n, k, s, d in zip(spatial, size, strides, dilation_rate, strict=True)
    ]
    pieces = []
    for offs in itertools.product(*(range(k) for k in size)):
        sl = tuple(
            slice(o * d, o * d + (m - 1) * s + 1, s)
            for o, d, s, m in zip(offs, dilation_rate, strides, outs, strict=True)
        )
        pieces.append(x[(slice(None), *sl, slice(None))])
    out = np.stack(pieces, axis=-2).reshape(x.shape[0], *outs, -1)
    return np.moveaxis(out, -1, 1) if channels_first else out



