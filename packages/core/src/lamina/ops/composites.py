"""Composites: what the core builds once from a backend's primitives.

The backend protocol lists the primitives a backend must translate. The functions here are
written once on top of them (through the active backend's namespaces, on native tensors
whose arithmetic operators every backend's arrays support), so no backend writes them
again. A backend that has a faster native kernel for one of them defines a function of the
same name in the same namespace module, with a comment saying why; `pick` prefers it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from lamina.backend import Capability
from lamina.backend.protocols._types import Tensor
from lamina.ops.dispatch import backend
from lamina.ops.dtypes import dtype_of

F = TypeVar("F", bound=Callable[..., Any])

_DIFF = (-1.0, 0.0, 1.0)
_SMOOTH = (1.0, 2.0, 1.0)


def pick(namespace: Any, name: str, composite: F) -> F:
    """The backend's own `name` in `namespace` where it has one, else `composite`."""
    native: F = getattr(namespace, name, composite)
    return native


# --- numpy reductions ----------------------------------------------------------------------
def ptp(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Range over `axis`: maximum minus minimum."""
    numpy = backend().numpy
    return numpy.max(x, axis, keepdims) - numpy.min(x, axis, keepdims)


def nanvar(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Population variance over `axis` of the elements that are not NaN."""
    b = backend()
    numpy, dtype = b.numpy, dtype_of(x)
    nan = numpy.isnan(x)
    zeros = numpy.full_like(x, b.core.convert_to_tensor(0, dtype), dtype)
    centered = numpy.where(nan, zeros, x - numpy.nanmean(x, axis, True))
    count = numpy.sum(b.core.cast(numpy.logical_not(nan), dtype), axis, keepdims)
    return numpy.sum(centered * centered, axis, keepdims) / count


def nanstd(x: Tensor, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Population standard deviation over `axis` of the elements that are not NaN."""
    return backend().numpy.sqrt(nanvar(x, axis, keepdims))


# --- image -----------------------------------------------------------------------------------
def sobel_edges(images: Tensor, channels_first: bool) -> Tensor:
    """Sobel ``[dy, dx]`` of batched, already reflect-padded float images (last axis 2)."""
    b = backend()
    height, width = (2, 3) if channels_first else (1, 2)
    dy = b.image.correlate_axes(images, ((height, _DIFF), (width, _SMOOTH)))
    dx = b.image.correlate_axes(images, ((height, _SMOOTH), (width, _DIFF)))
    return b.numpy.stack([dy, dx], 4)


def ssim(
    x1: Tensor, x2: Tensor, kernel: tuple[float, ...], c1: float, c2: float, channels_first: bool
) -> Tensor:
    """Mean SSIM per image of batched float images, valid gaussian window `kernel`."""
    b = backend()
    height, width = (2, 3) if channels_first else (1, 2)

    def blur(z: Tensor) -> Tensor:
        return b.image.correlate_axes(z, ((height, kernel), (width, kernel)))

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
