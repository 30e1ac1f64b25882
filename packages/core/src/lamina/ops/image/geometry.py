"""Geometric resampling: affine, perspective and elastic transforms, map_coordinates."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from lamina.ops import composites, dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite, pick
from lamina.ops.core.conversion import convert_to_numpy
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.image._common import (
    FILL_MODES,
    ORDERS,
    batched,
    data_format_of,
    float_input,
    gaussian_taps,
    image_shape,
    one_of,
    restore,
    unbatched,
)
from lamina.ops.shapes import static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["affine_transform", "elastic_transform", "map_coordinates", "perspective_transform"]


class AffineTransform(Op):
    def __init__(
        self, interpolation: str = "bilinear", fill_mode: str = "constant",
        fill_value: float = 0.0, data_format: Any = None, name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        self.interpolation = one_of(self.op_name, "interpolation", interpolation, tuple(ORDERS))
        self.order = ORDERS[self.interpolation]
        self.fill_mode = one_of(self.op_name, "fill_mode", fill_mode, FILL_MODES)
        self.fill_value = float(fill_value)
        self.data_format = data_format_of(self.op_name, data_format)

    def _check(self, images: Any, transform: Any) -> tuple[int, int]:
        rank = len(image_shape(self.op_name, images))
        t_shape = static_shape(transform)
        if len(t_shape) not in (1, 2) or t_shape[-1] not in (8, None):
            raise ValueError(
                f"`{self.op_name}`: argument `transform` must have shape (8,) or (batch, 8). "
                f"Received: transform.shape={t_shape}"
            )
        return rank, len(t_shape)

    def compute_output_spec(self, images: Any, transform: Any) -> SymbolicTensor:
        self._check(images, transform)
        return SymbolicTensor(static_shape(images), dtypes.dtype_of(images))

    def call(self, images: Any, transform: Any) -> Any:
        rank, t_rank = self._check(images, transform)
        x, dtype = float_input(self.op_name, images)
        t = to_tensor(transform, dtypes.dtype_of(x))
        if t_rank == 1:
            t = backend().numpy.reshape(t, (1, 8))
        x = batched(x, rank, 4)
        out = composite("image", "affine_transform")(
            x, t, self.order, self.fill_mode, self.fill_value,
            self.data_format == "channels_first",
        )  # fmt: skip
        return restore(unbatched(out, rank, 4), dtype)


def affine_transform(
    images: Any,
    transform: Any,
    interpolation: str = "bilinear",
    fill_mode: str = "constant",
    fill_value: float = 0,
    data_format: str | None = None,
) -> Any:
    """Apply projective transforms ``[a0, a1, a2, b0, b1, b2, c0, c1]`` to images.

    Output pixel ``(x, y)`` samples the input at ``((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1``.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        transform: shape ``(8,)`` or ``(batch, 8)``.
        interpolation: "nearest" or "bilinear".
        fill_mode: constant, nearest, wrap, mirror or reflect (outside the input).
        fill_value: the value outside the input when `fill_mode` is "constant".
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Example:
        >>> identity = np.array([1, 0, 0, 0, 1, 0, 0, 0], "float32")
        >>> lamina.ops.image.affine_transform(np.ones((4, 4, 1)), identity).shape
    """
    return AffineTransform(interpolation, fill_mode, fill_value, data_format)(images, transform)


class PerspectiveTransform(AffineTransform):
    def _points(self, start: Any, end: Any) -> int:
        s, e = static_shape(start), static_shape(end)
        for arg, shape in (("start_points", s), ("end_points", e)):
            if len(shape) not in (2, 3) or tuple(shape[-2:]) not in ((4, 2), (None, 2)):
                raise ValueError(
                    f"`{self.op_name}`: argument `{arg}` must have shape (4, 2) or "
                    f"(batch, 4, 2). Received: {arg}.shape={shape}"
                )
        if len(s) != len(e):
            raise ValueError(
                f"`{self.op_name}`: `start_points` and `end_points` must have the same rank. "
                f"Received: start_points.shape={s}, end_points.shape={e}"
            )
        return len(s)

    def compute_output_spec(self, images: Any, start: Any, end: Any) -> SymbolicTensor:  # type: ignore[override]
        image_shape(self.op_name, images)
        self._points(start, end)
        return SymbolicTensor(static_shape(images), dtypes.dtype_of(images))

    def call(self, images: Any, start: Any, end: Any) -> Any:  # type: ignore[override]
        rank = len(image_shape(self.op_name, images))
        p_rank = self._points(start, end)
        x, dtype = float_input(self.op_name, images)
        s, e = (to_tensor(p, "float32") for p in (start, end))
        if p_rank == 2:
            s, e = (backend().numpy.reshape(p, (1, 4, 2)) for p in (s, e))
        name = "perspective_coefficients"
        coeffs = pick(backend().image, name, getattr(composites, name))(s, e)
        t = backend().core.cast(coeffs, dtypes.dtype_of(x))
        out = composite("image", "affine_transform")(
            batched(x, rank, 4), t, self.order, "constant", self.fill_value,
            self.data_format == "channels_first",
        )  # fmt: skip
        return restore(unbatched(out, rank, 4), dtype)


def perspective_transform(
    images: Any,
    start_points: Any,
    end_points: Any,
    interpolation: str = "bilinear",
    fill_value: float = 0,
    data_format: str | None = None,
) -> Any:
    """Warp images so the four `start_points` ``(x, y)`` move to `end_points`.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        start_points: shape ``(4, 2)`` or ``(batch, 4, 2)``, corner points in the input.
        end_points: where those points land in the output, same shape.
        interpolation: "nearest" or "bilinear".
        fill_value: the value outside the input.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Example:
        >>> pts = np.array([[0, 0], [3, 0], [0, 3], [3, 3]], "float32")
        >>> lamina.ops.image.perspective_transform(np.ones((4, 4, 1)), pts, pts).shape
    """
    op = PerspectiveTransform(interpolation, "constant", fill_value, data_format)
    return op(images, start_points, end_points)


class MapCoordinates(Op):
    def __init__(
        self, order: int, fill_mode: str = "constant", fill_value: float = 0.0,
        name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(name=name)
        if order not in (0, 1) or isinstance(order, bool):
            raise ValueError(
                f"`{self.op_name}`: argument `order` must be 0 or 1. Received: order={order!r}"
            )
        self.order = int(order)
        self.fill_mode = one_of(self.op_name, "fill_mode", fill_mode, FILL_MODES)
        self.fill_value = float(fill_value)

    def _check(self, inputs: Any, coordinates: Any) -> tuple[int | None, ...]:
        shape, c_shape = static_shape(inputs), static_shape(coordinates)
        if len(c_shape) < 1 or c_shape[0] not in (len(shape), None) or not shape:
            raise ValueError(
                f"`{self.op_name}`: argument `coordinates` must have shape (inputs.ndim, ...) "
                f"with inputs.ndim={len(shape)} >= 1. Received: coordinates.shape={c_shape}"
            )
        return c_shape[1:]

    def compute_output_spec(self, inputs: Any, coordinates: Any) -> SymbolicTensor:
        return SymbolicTensor(self._check(inputs, coordinates), dtypes.dtype_of(inputs))

    def call(self, inputs: Any, coordinates: Any) -> Any:
        if isinstance(coordinates, (list, tuple)):
            # A list of per-axis arrays: stack on the host (torch warns on lists of arrays).
            coordinates = np.stack([np.asarray(convert_to_numpy(c)) for c in coordinates])
        self._check(inputs, coordinates)
        x, dtype = float_input(self.op_name, inputs, "inputs")
        coords = to_tensor(coordinates, dtypes.dtype_of(x))
        out = composite("image", "map_coordinates")(
            x, coords, self.order, self.fill_mode, self.fill_value
        )
        return restore(out, dtype)


def map_coordinates(
    inputs: Any, coordinates: Any, order: int, fill_mode: str = "constant", fill_value: float = 0
) -> Any:
    """Sample `inputs` at `coordinates` by interpolation, like `scipy.ndimage.map_coordinates`.

    Args:
        inputs: an array of any rank ``n``.
        coordinates: shape ``(n, *out)``: for each output point, its index in `inputs`.
        order: 0 (nearest) or 1 (linear).
        fill_mode: constant, nearest, wrap, mirror or reflect (applied to neighbour indices).
        fill_value: the value outside `inputs` when `fill_mode` is "constant".

    Example:
        >>> lamina.ops.image.map_coordinates(np.arange(4.0), [[0.5, 1.5]], 1)  # [0.5, 1.5]
    """
    return MapCoordinates(order, fill_mode, fill_value)(inputs, coordinates)


class ElasticTransform(AffineTransform):
    def __init__(
        self, alpha: float = 20.0, sigma: float = 5.0, interpolation: str = "bilinear",
        fill_mode: str = "reflect", fill_value: float = 0.0, seed: Any = None,
        data_format: Any = None, name: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(interpolation, fill_mode, fill_value, data_format, name=name)
        if not float(sigma) > 0:
            raise ValueError(
                f"`{self.op_name}`: argument `sigma` must be > 0. Received: sigma={sigma!r}"
            )
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(
                f"`{self.op_name}`: argument `seed` must be an int or None. Received: seed={seed!r}"
            )
        self.alpha, self.sigma, self.seed = float(alpha), float(sigma), seed

    def compute_output_spec(self, images: Any) -> SymbolicTensor:  # type: ignore[override]
        image_shape(self.op_name, images)
        return SymbolicTensor(static_shape(images), dtypes.dtype_of(images))

    def call(self, images: Any) -> Any:  # type: ignore[override]
        rank = len(image_shape(self.op_name, images))
        x, dtype = float_input(self.op_name, images)
        seed = random.randrange(2**31 - 1) if self.seed is None else self.seed
        taps = gaussian_taps(int(6 * self.sigma) | 1, self.sigma)
        out = composite("image", "elastic_transform")(
            batched(x, rank, 4), self.alpha, taps, self.order, self.fill_mode,
            self.fill_value, seed, self.data_format == "channels_first",
        )  # fmt: skip
        return restore(unbatched(out, rank, 4), dtype)


def elastic_transform(
    images: Any,
    alpha: float = 20.0,
    sigma: float = 5.0,
    interpolation: str = "bilinear",
    fill_mode: str = "reflect",
    fill_value: float = 0.0,
    seed: int | None = None,
    data_format: str | None = None,
) -> Any:
    """Displace pixels by a random field: normal noise blurred by a gaussian, times `alpha`.

    The field is drawn from the backend's own generator, so a given int `seed` reproduces
    the same result on one backend but not across backends; `seed=None` draws a fresh seed.

    Args:
        images: one image (rank 3) or a batch (rank 4).
        alpha: the displacement scale in pixels.
        sigma: the gaussian's standard deviation (its size is ``int(6 * sigma) | 1``).
        interpolation: "nearest" or "bilinear".
        fill_mode: constant, nearest, wrap, mirror or reflect.
        fill_value: the value outside the input when `fill_mode` is "constant".
        seed: an int, or None for a fresh random seed.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Example:
        >>> lamina.ops.image.elastic_transform(np.ones((8, 8, 1)), seed=1).shape  # (8, 8, 1)
    """
    op = ElasticTransform(alpha, sigma, interpolation, fill_mode, fill_value, seed, data_format)
    return op(images)
