"""Pixel-value layers: `RandomGrayscale`, `RandomInvert`, `Solarization`,
`RandomPosterization` and the deterministic `AutoContrast`. Outputs are in the compute
dtype."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    ImagePreprocessingLayer,
    RandomImageAugmentation,
    factor_pair,
    value_range_pair,
)


def _probability(layer: str, value: Any) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 <= float(value) <= 1:
        return float(value)
    raise ValueError(
        f"{layer}: argument `factor` must be a number in [0, 1]. Received: factor={value!r}"
    )


def _per_image(values: Any) -> Any:
    return ops.reshape(values, (-1, 1, 1, 1))


def _to_255(images: Any, value_range: tuple[float, float]) -> Any:
    low, high = value_range
    return ops.multiply(ops.subtract(images, low), 255.0 / (high - low))


def _from_255(images: Any, value_range: tuple[float, float]) -> Any:
    low, high = value_range
    return ops.add(ops.multiply(images, (high - low) / 255.0), low)


class RandomGrayscale(RandomImageAugmentation):
    """In training, turn each RGB image to grayscale (kept on 3 channels) with probability
    `factor`.

    Args:
        factor: the probability, in [0, 1] (default 0.5).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomGrayscale(0.2, seed=0)(images, training=True)
    """

    def __init__(self, factor: float = 0.5, data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _probability("RandomGrayscale", factor)

    def transform(self, images: Any, training: bool) -> Any:
        gray = ops.image.rgb_to_grayscale(images, data_format=self.data_format)
        gray = ops.broadcast_to(gray, ops.shape(images))
        apply = ops.less(_per_image(self.uniform(ops.shape(images)[0], 0.0, 1.0)), self.factor)
        return ops.where(apply, gray, images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = self.factor
        return config


class RandomInvert(RandomImageAugmentation):
    """In training, replace an image ``x`` by ``high - x`` with a probability drawn per
    image from `factor`.

    Args:
        factor: the probability in [0, 1], or a pair ``(lower, upper)`` to draw it from.
        value_range: the ``(low, high)`` range of the pixel values.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomInvert(0.5, value_range=(0, 1))(images, training=True)
    """

    def __init__(self, factor: Any = 1.0, value_range: Any = (0, 255), seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(factor, numbers.Real) and not isinstance(factor, bool):
            p = _probability("RandomInvert", factor)
            self.factor = (p, p)
        else:
            self.factor = factor_pair("RandomInvert", "factor", factor, (0.0, 1.0))
        self.value_range = value_range_pair("RandomInvert", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        batch = ops.shape(images)[0]
        probability = self.uniform(batch, *self.factor)
        apply = ops.less(self.uniform(batch, 0.0, 1.0), probability)
        inverted = ops.subtract(ops.cast(self.value_range[1], images.dtype), images)
        return ops.where(_per_image(apply), inverted, images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config


class Solarization(RandomImageAugmentation):
    """In training, add a random amount to each image (on a 0-255 scale), then invert the
    pixels at or above a random threshold (``255 - x``).

    Args:
        addition_factor: the added amount as a fraction of 255: ``f`` draws from
            ``[0, f]``, a pair from it; within [0, 1].
        threshold_factor: the threshold as a fraction of 255, likewise (0: invert all).
        value_range: the ``(low, high)`` range of the pixel values.
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments (and `data_format`).

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.Solarization(threshold_factor=(0.5, 0.5))(images, training=True)
    """

    def __init__(self, addition_factor: Any = 0.0, threshold_factor: Any = 0.0,
                 value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, **kwargs)
        self.addition_factor = factor_pair(
            "Solarization", "addition_factor", addition_factor, (0.0, 1.0), symmetric=False
        )
        self.threshold_factor = factor_pair(
            "Solarization", "threshold_factor", threshold_factor, (0.0, 1.0), symmetric=False
        )
        self.value_range = value_range_pair("Solarization", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        batch = ops.shape(images)[0]
        lo, hi = self.addition_factor
        addition = _per_image(self.uniform(batch, lo * 255.0, hi * 255.0))
        lo, hi = self.threshold_factor
        threshold = _per_image(self.uniform(batch, lo * 255.0, hi * 255.0))
        x = ops.cast(_to_255(images, self.value_range), "float32")
        x = ops.clip(ops.add(x, addition), 0.0, 255.0)
        x = ops.where(ops.less(x, threshold), x, ops.subtract(255.0, x))
        return ops.cast(_from_255(x, self.value_range), images.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "addition_factor": list(self.addition_factor),
                "threshold_factor": list(self.threshold_factor),
                "value_range": list(self.value_range),
            }
        )
        return config


class RandomPosterization(RandomImageAugmentation):
    """In training, keep only the top ``bits`` bits of each 8-bit pixel value, ``bits``
    drawn per image from ``[lower, upper]`` (integers in [1, 8]).

    Args:
        factor: the bits kept: ``n`` draws from ``[1, n]``, a pair ``(lower, upper)`` from
            it.
        value_range: the ``(low, high)`` range of the pixel values (mapped to 0-255).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomPosterization(4, seed=0)(images, training=True)
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        lower, upper = factor_pair("RandomPosterization", "factor", factor, (1.0, 8.0))
        if lower != int(lower) or upper != int(upper):
            raise ValueError(
                "RandomPosterization: argument `factor` must be an int or a pair of ints in "
                f"[1, 8]. Received: factor={factor!r}"
            )
        self.factor = (int(lower), int(upper))
        self.value_range = value_range_pair("RandomPosterization", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        lower, upper = self.factor
        draw = self.uniform(ops.shape(images)[0], float(lower), float(upper) + 1.0)
        bits = ops.minimum(ops.floor(draw), float(upper))
        step = _per_image(ops.power(2.0, ops.subtract(8.0, bits)))
        x = ops.floor(ops.clip(ops.cast(_to_255(images, self.value_range), "float32"), 0, 255))
        x = ops.multiply(ops.floor(ops.divide(x, step)), step)
        return ops.cast(_from_255(x, self.value_range), images.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config


class AutoContrast(ImagePreprocessingLayer):
    """Stretch each image's channels to the full `value_range` (the minimum goes to `low`,
    the maximum to `high`), in training and inference alike; flat channels are unchanged.

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        **kwargs: base `Layer` arguments (and `data_format`).

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.AutoContrast(value_range=(0, 1))(images)
    """

    def __init__(self, value_range: Any = (0, 255), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value_range = value_range_pair("AutoContrast", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        axes = self._spatial_axes()
        low = ops.min(images, axis=axes, keepdims=True)
        high = ops.max(images, axis=axes, keepdims=True)
        spread = ops.subtract(high, low)
        flat = ops.less_equal(spread, 0)
        safe = ops.where(flat, ops.ones_like(spread), spread)
        lo, hi = self.value_range
        scaled = ops.add(ops.multiply(ops.divide(ops.subtract(images, low), safe), hi - lo), lo)
        return ops.where(flat, images, ops.clip(scaled, lo, hi))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["value_range"] = list(self.value_range)
        return config
