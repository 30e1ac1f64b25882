"""`RandomRotation`, `RandomZoom` and `RandomTranslation`: random affine warps through
`lamina.ops.image.affine_transform` (output pixels sample the input, outside filled per
`fill_mode`)."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    one_of,
)

_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_INTERPOLATIONS = ("nearest", "bilinear")


class _RandomAffine(RandomImageAugmentation):
    """Shared arguments and the warp; subclasses give `_matrix(batch, h, w)`. Dict inputs
    move their boxes by the inverse of the sampling matrix and warp their segmentation
    masks with "nearest" (`_dict_inputs`)."""

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(self, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        name = type(self).__name__
        self.fill_mode = one_of(name, "fill_mode", fill_mode, _FILL_MODES)
        self.interpolation = one_of(name, "interpolation", interpolation, _INTERPOLATIONS)
        self.fill_value = float(fill_value)

    def _matrix(self, batch: Any, h: Any, w: Any) -> list[Any]:
        """The eight projective coefficients, each a ``(batch,)`` float32 tensor."""
        raise TypeError(f"{type(self).__name__} must define `_matrix`.")

    def draw(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        shape = ops.shape(images)
        h = ops.cast(shape[rows], "float32")
        w = ops.cast(shape[cols], "float32")
        return self._matrix(shape[0], h, w)

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        # Columns joined by `concatenate`: TensorFlow's graph optimizer mis-shapes
        # ``stack(...)[:, i, None, None]`` (the slice the backend takes) at run time.
        columns = [ops.reshape(c, (-1, 1)) for c in params]
        matrix = ops.cast(ops.concatenate(columns, axis=1), images.dtype)
        return ops.image.affine_transform(
            images, matrix, interpolation="nearest" if masks else self.interpolation,
            fill_mode=self.fill_mode, fill_value=0.0 if masks else self.fill_value,
            data_format=self.data_format,
        )  # fmt: skip

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        return _dict_inputs.inverse_sampling_map(params)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "fill_mode": self.fill_mode,
                "interpolation": self.interpolation,
                "fill_value": self.fill_value,
            }
        )
        return config


class RandomRotation(_RandomAffine):
    """Rotate each image by a random angle about its centre in training.

    Args:
        factor: a fraction of a full turn: ``f`` draws angles in ``[-f, f] * 2 pi``, a pair
            ``(lower, upper)`` in ``[lower, upper] * 2 pi``; positive is counter-clockwise.
        fill_mode: constant, nearest, wrap, mirror or reflect (the pixels outside).
        interpolation: "nearest" or "bilinear".
        seed: an int seed for the layer's `SeedGenerator`.
        fill_value: the value outside when `fill_mode` is "constant".
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomRotation(0.1, seed=0)(images, training=True)
    """

    def __init__(self, factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None,
                 fill_value: float = 0.0, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor_pair("RandomRotation", "factor", factor, (-1.0, 1.0))

    def _matrix(self, batch: Any, h: Any, w: Any) -> list[Any]:
        lower, upper = self.factor
        angle = self.uniform(batch, lower * 2 * math.pi, upper * 2 * math.pi)
        cos, sin = ops.cos(angle), ops.sin(angle)
        w1, h1 = ops.subtract(w, 1.0), ops.subtract(h, 1.0)
        # Offsets that keep the centre fixed: (extent - rotated extent) / 2.
        x_turned = ops.subtract(ops.multiply(cos, w1), ops.multiply(sin, h1))
        y_turned = ops.add(ops.multiply(sin, w1), ops.multiply(cos, h1))
        x_off = ops.divide(ops.subtract(w1, x_turned), 2.0)
        y_off = ops.divide(ops.subtract(h1, y_turned), 2.0)
        zero = ops.zeros_like(angle)
        return [cos, ops.negative(sin), x_off, sin, cos, y_off, zero, zero]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = list(self.factor)
        return config


class RandomZoom(_RandomAffine):
    """Zoom each image about its centre by a random factor in training: the image is
    sampled at ``1 + f`` times its coordinates (positive ``f`` zooms out, negative in).

    Args:
        height_factor: ``f`` for the height: a number (``[-f, f]``) or a pair within
            [-1, ...].
        width_factor: the same for the width; None zooms both axes by the same draw.
        fill_mode: constant, nearest, wrap, mirror or reflect.
        interpolation: "nearest" or "bilinear".
        seed: an int seed for the layer's `SeedGenerator`.
        fill_value: the value outside when `fill_mode` is "constant".
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomZoom(0.2, seed=0)(images, training=True)
    """

    def __init__(self, height_factor: Any, width_factor: Any = None,
                 fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        bounds = (-1.0, float("inf"))
        self.height_factor = factor_pair("RandomZoom", "height_factor", height_factor, bounds)
        self.width_factor = (
            None if width_factor is None
            else factor_pair("RandomZoom", "width_factor", width_factor, bounds)
        )  # fmt: skip

    def _matrix(self, batch: Any, h: Any, w: Any) -> list[Any]:
        zy = self.uniform(batch, 1.0 + self.height_factor[0], 1.0 + self.height_factor[1])
        zx = zy
        if self.width_factor is not None:
            zx = self.uniform(batch, 1.0 + self.width_factor[0], 1.0 + self.width_factor[1])
        x_off = ops.multiply(ops.divide(ops.subtract(w, 1.0), 2.0), ops.subtract(1.0, zx))
        y_off = ops.multiply(ops.divide(ops.subtract(h, 1.0), 2.0), ops.subtract(1.0, zy))
        zero = ops.zeros_like(zy)
        return [zx, zero, x_off, zero, zy, y_off, zero, zero]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["height_factor"] = list(self.height_factor)
        config["width_factor"] = None if self.width_factor is None else list(self.width_factor)
        return config


class RandomTranslation(_RandomAffine):
    """Shift each image by a random fraction of its height and width in training.

    Args:
        height_factor: a number ``f`` (shifts in ``[-f, f] * height``) or a pair, in [-1, 1];
            positive moves the content down.
        width_factor: the same for the width; positive moves the content right.
        fill_mode: constant, nearest, wrap, mirror or reflect.
        interpolation: "nearest" or "bilinear".
        seed: an int seed for the layer's `SeedGenerator`.
        fill_value: the value outside when `fill_mode` is "constant".
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomTranslation(0.1, 0.1, seed=0)(images, training=True)
    """

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | None = None,
                 fill_value: float = 0.0, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        bounds = (-1.0, 1.0)
        self.height_factor = factor_pair("RandomTranslation", "height_factor", height_factor,
                                         bounds)  # fmt: skip
        self.width_factor = factor_pair("RandomTranslation", "width_factor", width_factor,
                                        bounds)  # fmt: skip

    def _matrix(self, batch: Any, h: Any, w: Any) -> list[Any]:
        dy = ops.multiply(self.uniform(batch, *self.height_factor), h)
        dx = ops.multiply(self.uniform(batch, *self.width_factor), w)
        one = ops.ones_like(dx)
        zero = ops.zeros_like(dx)
        return [one, zero, ops.negative(dx), zero, one, ops.negative(dy), zero, zero]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {"height_factor": list(self.height_factor), "width_factor": list(self.width_factor)}
        )
        return config


class RandomShear(_RandomAffine):
    """Shear each image about its centre by random amounts in training: output pixel
    ``(x, y)`` samples the input at ``(x + sx (y - cy), y + sy (x - cx))``, with ``sx`` and
    ``sy`` drawn per image from the factors and each given a random sign.

    Args:
        x_factor: the horizontal shear as a fraction of the image: ``f`` draws from
            ``[0, f]``, a pair from it; within [0, 1] (0.3 moves pixels up to 30% across).
        y_factor: the same for the vertical shear.
        interpolation: "nearest" or "bilinear".
        fill_mode: constant, nearest, wrap, mirror or reflect.
        fill_value: the value outside when `fill_mode` is "constant".
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomShear(0.2, 0.1, seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    def __init__(self, x_factor: Any = 0.0, y_factor: Any = 0.0,
                 interpolation: str = "bilinear", fill_mode: str = "reflect",
                 fill_value: float = 0.0, data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.x_factor = factor_pair("RandomShear", "x_factor", x_factor, (0.0, 1.0), False)
        self.y_factor = factor_pair("RandomShear", "y_factor", y_factor, (0.0, 1.0), False)

    def _signed(self, batch: Any, factor: tuple[float, float]) -> Any:
        sign = ops.where(ops.less(self.uniform(batch, 0.0, 1.0), 0.5), -1.0, 1.0)
        return ops.multiply(self.uniform(batch, *factor), sign)

    def _matrix(self, batch: Any, h: Any, w: Any) -> list[Any]:
        sx = self._signed(batch, self.x_factor)
        sy = self._signed(batch, self.y_factor)
        cx = ops.divide(ops.subtract(w, 1.0), 2.0)
        cy = ops.divide(ops.subtract(h, 1.0), 2.0)
        one = ops.ones_like(sx)
        zero = ops.zeros_like(sx)
        x_off = ops.negative(ops.multiply(sx, cy))
        y_off = ops.negative(ops.multiply(sy, cx))
        return [one, sx, x_off, sy, one, y_off, zero, zero]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"x_factor": list(self.x_factor), "y_factor": list(self.y_factor)})
        return config
