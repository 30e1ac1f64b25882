"""`RandomPerspective` and `RandomElasticTransform`: random non-affine warps."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    one_of,
    probability_pair,
    value_range_pair,
)
from lamina.layers.preprocessing.image.blur import gaussian_along

_INTERPOLATIONS = ("nearest", "bilinear")


def _square_to_quad(corners: Any) -> list[Any]:
    """The projective map (9 entries, row-major, each ``(batch,)``) taking the unit
    square's corners (0,0), (1,0), (1,1), (0,1) to `corners` ``(batch, 4, 2)`` given as
    top-left, top-right, bottom-left, bottom-right (Heckbert's closed form)."""
    x0, y0 = corners[:, 0, 0], corners[:, 0, 1]
    x1, y1 = corners[:, 1, 0], corners[:, 1, 1]
    x2, y2 = corners[:, 3, 0], corners[:, 3, 1]
    x3, y3 = corners[:, 2, 0], corners[:, 2, 1]
    dx1, dy1 = ops.subtract(x1, x2), ops.subtract(y1, y2)
    dx2, dy2 = ops.subtract(x3, x2), ops.subtract(y3, y2)
    dx3 = ops.add(ops.subtract(x0, x1), ops.subtract(x2, x3))
    dy3 = ops.add(ops.subtract(y0, y1), ops.subtract(y2, y3))
    det = ops.subtract(ops.multiply(dx1, dy2), ops.multiply(dx2, dy1))
    g = ops.divide(ops.subtract(ops.multiply(dx3, dy2), ops.multiply(dx2, dy3)), det)
    h = ops.divide(ops.subtract(ops.multiply(dx1, dy3), ops.multiply(dx3, dy1)), det)
    a = ops.add(ops.subtract(x1, x0), ops.multiply(g, x1))
    b = ops.add(ops.subtract(x3, x0), ops.multiply(h, x3))
    d = ops.add(ops.subtract(y1, y0), ops.multiply(g, y1))
    e = ops.add(ops.subtract(y3, y0), ops.multiply(h, y3))
    return [a, b, x0, d, e, y0, g, h, ops.ones_like(g)]


def _adjugate3(m: list[Any]) -> list[Any]:
    """The adjugate of 3x3 matrices (the inverse up to scale)."""

    def minor(i: int, j: int, k: int, n: int) -> Any:
        return ops.subtract(ops.multiply(m[i], m[j]), ops.multiply(m[k], m[n]))

    return [
        minor(4, 8, 5, 7), minor(2, 7, 1, 8), minor(1, 5, 2, 4),
        minor(5, 6, 3, 8), minor(0, 8, 2, 6), minor(2, 3, 0, 5),
        minor(3, 7, 4, 6), minor(1, 6, 0, 7), minor(0, 4, 1, 3),
    ]  # fmt: skip


def _matmul3(p: list[Any], q: list[Any]) -> list[Any]:
    out = []
    for i in range(3):
        for j in range(3):
            terms = [ops.multiply(p[3 * i + k], q[3 * k + j]) for k in range(3)]
            out.append(ops.add(ops.add(terms[0], terms[1]), terms[2]))
    return out


class RandomPerspective(RandomImageAugmentation):
    """In training, warp some images (probability from `factor`) by a random perspective:
    each corner moves by up to ``scale / 2`` of the image's width and height, and the
    output is the homography taking the corners to their new places; outside pixels get
    `fill_value`. The output is in the compute dtype.

    Args:
        factor: the probability in [0, 1] (1: every image), or a pair to draw it from.
        scale: the corners' largest move, as a fraction of the image size, in [0, 1].
        interpolation: "nearest" or "bilinear".
        fill_value: the value of pixels that come from outside the image.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomPerspective(scale=0.3, seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(self, factor: Any = 1.0, scale: float = 1.0, interpolation: str = "bilinear",
                 fill_value: float = 0.0, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = probability_pair("RandomPerspective", factor)
        self.scale = factor_pair("RandomPerspective", "scale", scale, (0.0, 1.0), False)[1]
        self.interpolation = one_of("RandomPerspective", "interpolation", interpolation,
                                    _INTERPOLATIONS)  # fmt: skip
        self.fill_value = float(fill_value)

    def corners(self, batch: Any, h: Any, w: Any) -> tuple[Any, Any]:
        """The ``(batch, 4, 2)`` start corners ``(x, y)`` and where they move to."""
        w1, h1 = ops.subtract(w, 1.0), ops.subtract(h, 1.0)
        zero = ops.zeros_like(w1)
        start = ops.reshape(ops.stack([zero, zero, w1, zero, zero, h1, w1, h1]), (1, 4, 2))
        unit = random.uniform((batch, 4, 2), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
        move = ops.multiply(ops.subtract(unit, 0.5), self.scale)
        size = ops.reshape(ops.stack([w, h]), (1, 1, 2))
        start = ops.broadcast_to(start, ops.shape(move))
        return start, ops.add(start, ops.multiply(move, size))

    def draw(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        shape = ops.shape(images)
        h = ops.cast(shape[rows], "float32")
        w = ops.cast(shape[cols], "float32")
        start, end = self.corners(shape[0], h, w)
        apply = ops.reshape(self.applies(shape[0], self.factor), (-1, 1, 1))
        return start, ops.where(apply, end, start)

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        start, end = params
        # Output pixels sample the input through end -> unit square -> start.
        m = _matmul3(_square_to_quad(start), _adjugate3(_square_to_quad(end)))
        scale = m[8]
        columns = [ops.reshape(ops.divide(v, scale), (-1, 1)) for v in m[:8]]
        matrix = ops.cast(ops.concatenate(columns, axis=1), images.dtype)
        return ops.image.affine_transform(
            images, matrix, interpolation="nearest" if masks else self.interpolation,
            fill_mode="constant", fill_value=0.0 if masks else self.fill_value,
            data_format=self.data_format,
        )  # fmt: skip

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        start, end = params
        # start -> end on pixel centres, conjugated by the half-pixel shift.
        forward = _matmul3(_square_to_quad(end), _adjugate3(_square_to_quad(start)))
        one = ops.ones_like(forward[0])
        zero = ops.zeros_like(one)
        half = ops.multiply(one, 0.5)
        shift = [one, zero, half, zero, one, half, zero, zero, one]
        back = [one, zero, ops.negative(half), zero, one, ops.negative(half), zero, zero, one]
        return _matmul3(shift, _matmul3(forward, back))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "factor": list(self.factor),
                "scale": self.scale,
                "interpolation": self.interpolation,
                "fill_value": self.fill_value,
            }
        )
        return config


_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


class RandomElasticTransform(RandomImageAugmentation):
    """In training, warp some images (probability from `factor`) by a smooth random
    displacement field: uniform noise in [-1, 1] per pixel and axis, smoothed by a gaussian
    of standard deviation a tenth of the shorter side, scaled so its largest move is
    ``s / 8`` of the shorter side (``s`` drawn per image from `scale`). Output pixels
    sample the input at their displaced positions; the output is in the compute dtype,
    clipped to `value_range`.

    Args:
        factor: the probability in [0, 1] (1: every image), or a pair to draw it from.
        scale: the strength ``s`` in [0, 1]: a number draws from ``[0, s]``, a pair from
            it.
        interpolation: "nearest" or "bilinear".
        fill_mode: constant, nearest, wrap, mirror or reflect (samples outside).
        fill_value: the value outside when `fill_mode` is "constant".
        value_range: the ``(low, high)`` range of the pixel values.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomElasticTransform(seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    dict_inputs = _dict_inputs.UNSUPPORTED  # labels, boxes and masks do not follow (yet)

    def __init__(self, factor: Any = 1.0, scale: Any = 1.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0,
                 value_range: Any = (0, 255), seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        name = "RandomElasticTransform"
        self.factor = probability_pair(name, factor)
        self.scale = factor_pair(name, "scale", scale, (0.0, 1.0), symmetric=False)
        self.interpolation = one_of(name, "interpolation", interpolation, _INTERPOLATIONS)
        self.fill_mode = one_of(name, "fill_mode", fill_mode, _FILL_MODES)
        self.fill_value = float(fill_value)
        self.value_range = value_range_pair(name, value_range)

    def field(self, batch: Any, h: int, w: int) -> Any:
        """The ``(batch, h, w, 2)`` displacements ``(dy, dx)`` in pixels."""
        noise = random.uniform((batch, h, w, 2), 0.0, 1.0, dtype="float32",
                               seed=self.seed_generator)  # fmt: skip
        noise = ops.subtract(ops.multiply(noise, 2.0), 1.0)
        sigma_px = max(min(h, w) / 10.0, 0.5)
        size = 2 * math.ceil(2 * sigma_px) + 1
        sigma = ops.full((batch,), sigma_px, dtype="float32")
        smooth = gaussian_along(gaussian_along(noise, 1, size, sigma), 2, size, sigma)
        peak = ops.max(ops.abs(smooth), axis=(1, 2, 3), keepdims=True)
        strength = ops.reshape(self.uniform(batch, *self.scale), (-1, 1, 1, 1))
        reach = ops.multiply(strength, min(h, w) / 8.0)
        return ops.multiply(ops.divide(smooth, ops.maximum(peak, 1e-6)), reach)

    def transform(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        h, w = images.shape[rows], images.shape[cols]
        if h is None or w is None:
            raise ValueError(
                "RandomElasticTransform: the inputs' height and width must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        shape = ops.shape(images)
        move = self.field(shape[0], int(h), int(w))
        apply = self.applies(shape[0], self.factor)
        move = ops.where(apply, move, ops.zeros_like(move))
        grids = ops.meshgrid(*[ops.arange(n, dtype="float32") for n in shape], indexing="ij")
        dy, dx = move[..., 0], move[..., 1]
        channel_axis = 1 if self._channels_first else 3
        dy, dx = ops.expand_dims(dy, channel_axis), ops.expand_dims(dx, channel_axis)
        grids[rows] = ops.add(grids[rows], dy)
        grids[cols] = ops.add(grids[cols], dx)
        order = 0 if self.interpolation == "nearest" else 1
        warped = ops.image.map_coordinates(
            ops.cast(images, "float32"), ops.stack(grids), order, fill_mode=self.fill_mode,
            fill_value=self.fill_value,
        )  # fmt: skip
        warped = ops.clip(warped, self.value_range[0], self.value_range[1])
        return ops.cast(ops.where(apply, warped, images), images.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "factor": list(self.factor),
                "scale": list(self.scale),
                "interpolation": self.interpolation,
                "fill_mode": self.fill_mode,
                "fill_value": self.fill_value,
                "value_range": list(self.value_range),
            }
        )
        return config
