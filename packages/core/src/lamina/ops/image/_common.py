"""Shared validation and static helpers of the image ops (no backend needed)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.config import standardize_data_format
from lamina.ops import dtypes
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.shapes import Shape, static_shape

INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5", "area")
FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
ORDERS = {"nearest": 0, "bilinear": 1}


def data_format_of(op: str, data_format: Any) -> str:
    """`data_format` resolved against the global default, with the op named on error."""
    try:
        return standardize_data_format(data_format)
    except ValueError as e:
        raise ValueError(f"`{op}`: {e}") from None


def image_shape(op: str, x: Any, arg: str = "images", spatial: int = 2) -> Shape:
    """The shape of `x`, checked to be one image (rank spatial+1) or a batch (spatial+2)."""
    shape = static_shape(x)
    if len(shape) not in (spatial + 1, spatial + 2):
        raise ValueError(
            f"`{op}`: argument `{arg}` must have rank {spatial + 1} (one image) or "
            f"{spatial + 2} (a batch). Received: {arg}.shape={shape}"
        )
    return shape


def spatial_axes(rank: int, channels_first: bool, spatial: int = 2) -> tuple[int, ...]:
    """The spatial axes of a rank-`rank` image tensor (batched or not)."""
    start = rank - spatial - (0 if channels_first else 1)
    return tuple(range(start, start + spatial))


def channel_axis(rank: int, channels_first: bool, spatial: int = 2) -> int:
    return rank - spatial - 1 if channels_first else rank - 1


def one_of(op: str, arg: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(
            f"`{op}`: argument `{arg}` must be one of {allowed}. Received: {arg}={value!r}"
        )
    return str(value)


def int_tuple(op: str, arg: str, value: Any, n: int, minimum: int = 1) -> tuple[int, ...]:
    """`value` (an int or a sequence of `n` ints) as a tuple of ints >= `minimum`."""
    vals = (value,) * n if isinstance(value, int) and not isinstance(value, bool) else value
    try:
        out = tuple(int(v) for v in vals)
        ok = len(out) == n and all(not isinstance(v, bool) and int(v) == v for v in vals)
    except (TypeError, ValueError):
        ok = False
    if not ok or any(v < minimum for v in out):
        raise ValueError(
            f"`{op}`: argument `{arg}` must be an int or a tuple of {n} ints >= {minimum}. "
            f"Received: {arg}={value!r}"
        )
    return out


def float_tuple(op: str, arg: str, value: Any, n: int) -> tuple[float, ...]:
    """`value` (a number or a sequence of `n` numbers > 0) as a tuple of floats."""
    vals = (value,) * n if isinstance(value, (int, float)) else value
    try:
        out = tuple(float(v) for v in vals)
    except (TypeError, ValueError):
        out = ()
    if len(out) != n or any(not v > 0 for v in out):
        raise ValueError(
            f"`{op}`: argument `{arg}` must be a positive number or a tuple of {n} positive "
            f"numbers. Received: {arg}={value!r}"
        )
    return out


def float_input(op: str, x: Any, arg: str = "images") -> tuple[Any, str]:
    """`x` as a float tensor (ints become floatx) and its original dtype."""
    dtype = dtypes.dtype_of(x)
    if dtype not in dtypes.FLOATS + dtypes.INTS + dtypes.BOOL:
        raise TypeError(
            f"`{op}`: argument `{arg}` must have a real dtype. Received: {arg}.dtype={dtype}"
        )
    compute = dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)
    return to_tensor(x, compute), dtype


def restore(x: Any, dtype: str) -> Any:
    """Cast a float result back to the input's `dtype` (ints rounded and clipped)."""
    if dtypes.dtype_of(x) == dtype:
        return x
    return composite("image", "saturate_cast")(x, dtype)


def batched(x: Any, rank: int, full_rank: int) -> Any:
    """`x` with a leading batch axis of 1 when it is a single image."""
    if rank == full_rank:
        return x
    shape = tuple(-1 if d is None else d for d in static_shape(x))
    return backend().numpy.reshape(x, (1, *shape))


def unbatched(x: Any, rank: int, full_rank: int) -> Any:
    if rank == full_rank:
        return x
    return backend().numpy.reshape(x, tuple(static_shape(x)[1:]))  # type: ignore[arg-type]


def gaussian_taps(size: int, sigma: float) -> tuple[float, ...]:
    """A normalized 1-D gaussian of `size` taps centred on the middle."""
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return tuple(float(v) for v in k / k.sum())


def _keys_cubic(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    # Keys' cubic convolution with a = -0.5 (as jax.image and tf.image v2 use).
    x = np.abs(x)
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def _lanczos(radius: float) -> Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
    def kernel(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.where(np.abs(x) < radius, np.sinc(x) * np.sinc(x / radius), 0.0)

    return kernel


KERNELS: dict[str, Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]] = {
    "linear": lambda x: np.maximum(0.0, 1.0 - np.abs(x)),
    "cubic": _keys_cubic,
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
    "box": lambda x: np.where(np.abs(x) < 0.5, 1.0, np.where(np.abs(x) == 0.5, 0.5, 0.0)),
}


def scale_weights(
    in_size: int, out_size: int, scale: float, translation: float, kernel: str, antialias: bool
) -> np.ndarray[Any, Any]:
    """The ``(out, in)`` matrix resampling one axis, after `jax.image.scale_and_translate`.

    Output pixel centre ``i + 0.5`` maps to input ``(i + 0.5 - translation) / scale``; with
    antialiasing a downscaling kernel is widened by ``1 / scale``. Rows are normalized and
    zeroed where the sample falls outside the input.
    """
    sample = (np.arange(out_size, dtype=np.float64) + 0.5 - translation) / scale - 0.5
    kernel_scale = max(1.0 / scale, 1.0) if antialias else 1.0
    dist = (sample[:, None] - np.arange(in_size, dtype=np.float64)[None, :]) / kernel_scale
    w = KERNELS[kernel](dist)
    total = w.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(np.abs(total) > 1000.0 * np.finfo(np.float32).eps, w / total, 0.0)
    inside = (sample >= -0.5) & (sample <= in_size - 0.5)
    return np.where(inside[:, None], w, 0.0)


def nearest_weights(in_size: int, out_size: int) -> np.ndarray[Any, Any]:
    """One-hot ``(out, in)`` rows picking ``floor((i + 0.5) * in / out)`` (half-pixel)."""
    idx = np.floor((np.arange(out_size) + 0.5) * (in_size / out_size)).astype(np.int64)
    w = np.zeros((out_size, in_size))
    w[np.arange(out_size), np.minimum(idx, in_size - 1)] = 1.0
    return w


def same_padding(size: int | None, k: int, stride: int, dilation: int) -> tuple[int, int]:
    """TF-style "same" padding of one axis."""
    if size is None:
        raise ValueError("padding='same' needs static spatial dims")
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2
