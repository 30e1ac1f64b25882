"""`RandomSaturation`, `RandomHue` and `RandomSharpness`: random colour and detail
changes, per image, in training. Outputs are in the compute dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    value_range_pair,
)


def _per_image(values: Any, dtype: Any) -> Any:
    return ops.cast(ops.reshape(values, (-1, 1, 1, 1)), dtype)


class _HsvAugmentation(RandomImageAugmentation):
    """Maps pixels to [0, 1] RGB, changes one HSV channel and maps back."""

    _CHANNEL = 0

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        name = type(self).__name__
        self.factor = factor_pair(name, "factor", factor, (0.0, 1.0), symmetric=False)
        self.value_range = value_range_pair(name, value_range)

    def _adjust(self, channel: Any, batch: Any) -> Any:
        """The changed HSV channel, shape ``(batch, h, w, 1)`` or channels first."""
        return channel

    def transform(self, images: Any, training: bool) -> Any:
        low, high = self.value_range
        x = ops.divide(ops.subtract(images, low), high - low)
        hsv = ops.image.rgb_to_hsv(ops.clip(x, 0.0, 1.0), data_format=self.data_format)
        axis = 1 if self._channels_first else 3
        parts = ops.split(hsv, 3, axis=axis)
        parts[self._CHANNEL] = self._adjust(parts[self._CHANNEL], ops.shape(images)[0])
        rgb = ops.image.hsv_to_rgb(ops.concatenate(parts, axis=axis), data_format=self.data_format)
        rgb = ops.clip(rgb, 0.0, 1.0)
        return ops.add(ops.multiply(rgb, high - low), low)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config


class RandomSaturation(_HsvAugmentation):
    """In training, scale each image's saturation by ``f / (1 - f)``, ``f`` drawn per image
    from `factor`: 0.5 leaves the image as it is, 0 makes it gray, 1 fully saturated.

    Args:
        factor: ``f`` in [0, 1]: a number draws from ``[0, f]``, a pair from it.
        value_range: the ``(low, high)`` range of the pixel values.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomSaturation((0.3, 0.7), seed=0)(images, training=True)
    """

    _CHANNEL = 1

    def _adjust(self, channel: Any, batch: Any) -> Any:
        f = self.uniform(batch, *self.factor)
        scale = ops.divide(f, ops.add(ops.subtract(1.0, f), 1e-7))
        return ops.clip(ops.multiply(channel, _per_image(scale, channel.dtype)), 0.0, 1.0)


class RandomHue(_HsvAugmentation):
    """In training, rotate each image's hue by ``+-f / 2`` of a full turn, ``f`` drawn per
    image from `factor` and the sign at random.

    Args:
        factor: ``f`` in [0, 1]: a number draws from ``[0, f]``, a pair from it.
        value_range: the ``(low, high)`` range of the pixel values.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomHue(0.2, value_range=(0, 1), seed=0)(images, training=True)
    """

    _CHANNEL = 0

    def _adjust(self, channel: Any, batch: Any) -> Any:
        sign = ops.where(ops.less(self.uniform(batch, 0.0, 1.0), 0.5), -1.0, 1.0)
        delta = ops.multiply(ops.multiply(self.uniform(batch, *self.factor), 0.5), sign)
        shifted = ops.add(channel, _per_image(delta, channel.dtype))
        return ops.subtract(shifted, ops.floor(shifted))


class RandomSharpness(RandomImageAugmentation):
    """In training, blend each image with a smoothed copy (3x3 kernel, centre weight 5/13,
    the rest 1/13, zero padding): ``x + (1 - s) * (smooth - x)`` with ``s = 2 f``, ``f``
    drawn per image from `factor` (0.5 leaves the image as it is, larger sharpens).

    Args:
        factor: ``f`` in [0, 1]: a number draws from ``[0, f]``, a pair from it.
        value_range: the ``(low, high)`` range of the pixel values (output clipped to it).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomSharpness((0.6, 0.9), seed=0)(images, training=True)
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor_pair("RandomSharpness", "factor", factor, (0.0, 1.0), False)
        self.value_range = value_range_pair("RandomSharpness", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        channels = images.shape[1 if self._channels_first else 3]
        if channels is None:
            raise ValueError(
                "RandomSharpness: the inputs' channel count must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        taps = np.full((3, 3), 1.0 / 13.0)
        taps[1, 1] = 5.0 / 13.0
        kernel = np.tile(taps[:, :, None, None], (1, 1, int(channels), 1))
        kernel_t = ops.convert_to_tensor(kernel, dtype=images.dtype)
        smooth = ops.depthwise_conv(images, kernel_t, padding="same", data_format=self.data_format)
        s = _per_image(ops.multiply(self.uniform(ops.shape(images)[0], *self.factor), 2.0),
                       images.dtype)  # fmt: skip
        out = ops.add(images, ops.multiply(ops.subtract(1.0, s), ops.subtract(smooth, images)))
        return ops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config
