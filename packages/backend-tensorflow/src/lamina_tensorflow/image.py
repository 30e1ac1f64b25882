"""TensorFlow: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import tensorflow as tf

from lamina.backend.kit import DType, Tensor

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


def _moveaxis(x: Tensor, src: int, dst: int) -> Tensor:
    perm = list(range(x.shape.rank))
    perm.insert(dst % len(perm), perm.pop(src % len(perm)))
    return tf.transpose(x, perm)


def _narrow(x: Tensor, axis: int, start: int, n: int) -> Tensor:
    return x[(slice(None),) * axis + (slice(start, start + n),)]


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = _moveaxis(tf.tensordot(w, x, axes=[[1], [axis]]), 0, axis)
    return x


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return tf.pad(x, paddings, constant_values=tf.cast(constant_value, x.dtype))
    # tf.pad has no "edge" mode: gather NumPy-padded indices for every mode alike.
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            idx = np.pad(np.arange(x.shape[axis]), (before, after), mode=mode)  # type: ignore[call-overload]
            x = tf.gather(x, idx, axis=axis)
    return x


def crop(x: Tensor, begin: tuple[int, ...], size: tuple[int, ...]) -> Tensor:
    return x[tuple(slice(b, b + s) for b, s in zip(begin, size, strict=True))]


def correlate_axes(x: Tensor, kernels: tuple[tuple[int, tuple[float, ...]], ...]) -> Tensor:
    for axis, taps in kernels:
        n = x.shape[axis] - len(taps) + 1
        out = None
        for i, t in enumerate(taps):
            term = _narrow(x, axis, i, n) * t
            out = term if out is None else out + term
        x = out
    return x


def saturate_cast(x: Tensor, dtype: DType) -> Tensor:
    if dtype == "bool":
        return tf.not_equal(tf.round(x), 0)
    if tf.as_dtype(dtype).is_integer:
        return tf.saturate_cast(tf.round(x), dtype)
    return tf.cast(x, dtype)


def _fix(idx: Tensor, size: int, mode: str) -> tuple[Tensor, Tensor | None]:
    """Neighbour indices mapped into ``[0, size)`` by `mode`, and a validity mask."""
    size_t = tf.constant(size, idx.dtype)
    if mode == "constant":
        return tf.clip_by_value(idx, 0, size_t - 1), (idx >= 0) & (idx < size_t)
    if mode == "nearest":
        return tf.clip_by_value(idx, 0, size_t - 1), None
    if mode == "wrap":
        return tf.math.floormod(idx, size_t), None
    if mode == "mirror":
        if size == 1:
            return tf.zeros_like(idx), None
        m = tf.math.floormod(idx, 2 * size_t - 2)
        return tf.where(m < size_t, m, 2 * size_t - 2 - m), None
    m = tf.math.floormod(idx, 2 * size_t)  # reflect: the edge pixel repeats
    return tf.where(m < size_t, m, 2 * size_t - 1 - m), None


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
            taps.append([(tf.cast(tf.round(c), tf.int64), None)])
        else:
            lo = tf.floor(c)
            frac = c - lo
            lo_i = tf.cast(lo, tf.int64)
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
        vals = tf.gather(table, flat)
        if valid is not None:
            vals = tf.where(valid[..., None], vals, tf.cast(cval, table.dtype))
        if weight is not None:
            vals = vals * weight[..., None]
        out = vals if out is None else out + vals
    return out


def map_coordinates(
    inputs: Tensor, coordinates: Tensor, order: int, fill_mode: str, fill_value: float
) -> Tensor:
    coords = [coordinates[i] for i in range(inputs.shape.rank)]
    shape = tuple(int(d) for d in inputs.shape)
    out = _interp(tf.reshape(inputs, (-1, 1)), shape, coords, 0, order, fill_mode, fill_value)
    return out[..., 0]


def _sample(images: Tensor, ys: Tensor, xs: Tensor, order: int, mode: str, cval: float) -> Tensor:
    """Sample NHWC `images` at per-batch coordinates ``(B or 1, H', W')``."""
    h, w, c = (int(d) for d in images.shape[1:])
    b = tf.shape(images, out_type=tf.int64)[0]
    base = tf.reshape(tf.range(b) * (h * w), (-1, 1, 1))
    return _interp(tf.reshape(images, (-1, c)), (h, w), [ys, xs], base, order, mode, cval)


def _grid(h: int, w: int, dtype: Any) -> tuple[Tensor, Tensor]:
    ys, xs = tf.meshgrid(tf.range(h, dtype=dtype), tf.range(w, dtype=dtype), indexing="ij")
    return ys, xs


def affine_transform(
    images: Tensor,
    transform: Tensor,
    order: int,
    fill_mode: str,
    fill_value: float,
    channels_first: bool,
) -> Tensor:
    x = _moveaxis(images, 1, -1) if channels_first else images
    ys, xs = _grid(x.shape[1], x.shape[2], x.dtype)
    t = [transform[:, i, None, None] for i in range(8)]
    k = t[6] * xs + t[7] * ys + 1
    x_in = (t[0] * xs + t[1] * ys + t[2]) / k
    y_in = (t[3] * xs + t[4] * ys + t[5]) / k
    out = _sample(x, y_in, x_in, order, fill_mode, fill_value)
    return _moveaxis(out, -1, 1) if channels_first else out




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
    x = _moveaxis(images, 1, -1) if channels_first else images
    h, w = int(x.shape[1]), int(x.shape[2])
    shape = tf.stack([2, tf.shape(x)[0], h, w])
    noise = tf.random.stateless_normal(shape, seed=[seed, 0], dtype=x.dtype)
    lo = (len(kernel) - 1) // 2
    p = (lo, len(kernel) - 1 - lo)
    noise = tf.pad(noise, ((0, 0), (0, 0), p, p))
    d = correlate_axes(noise, ((2, kernel), (3, kernel))) * alpha
    ys, xs = _grid(h, w, x.dtype)
    out = _sample(x, ys + d[0], xs + d[1], order, fill_mode, fill_value)
    return _moveaxis(out, -1, 1) if channels_first else out


def extract_patches(
    x: Tensor,
    size: tuple[int, ...],
    strides: tuple[int, ...],
    dilation_rate: tuple[int, ...],
    channels_first: bool,
) -> Tensor:
    if channels_first:
        x = _moveaxis(x, 1, -1)
    spatial = [int(d) for d in x.shape[1:-1]]
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
    out = tf.stack(pieces, axis=-2)
    out = tf.reshape(out, (-1, *outs, len(pieces) * int(x.shape[-1])))
    return _moveaxis(out, -1, 1) if channels_first else out



