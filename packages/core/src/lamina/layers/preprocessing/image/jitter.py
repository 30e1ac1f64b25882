"""`RandomColorJitter` (brightness, contrast, saturation and hue in turn) and
`RandomColorDegeneration` (a random blend towards grayscale)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    value_range_pair,
)
from lamina.layers.preprocessing.image.color import RandomBrightness, RandomContrast
from lamina.layers.preprocessing.image.hsv import RandomHue, RandomSaturation


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, (tuple, list)) else value


class RandomColorJitter(RandomImageAugmentation):
    """In training, change brightness, contrast, saturation and hue, in that order, each
    by the layer of that name (`RandomBrightness`, `RandomContrast`, `RandomSaturation`,
    `RandomHue`) with the given factor; a factor left None skips that step.

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        brightness_factor: `RandomBrightness`'s factor, or None.
        contrast_factor: `RandomContrast`'s factor, or None.
        saturation_factor: `RandomSaturation`'s factor, or None.
        hue_factor: `RandomHue`'s factor, or None.
        seed: an int seed, given to each step's layer.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> jitter = lamina.layers.RandomColorJitter((0, 1), brightness_factor=0.2, seed=0)
        >>> tuple(jitter(images).shape)
        (2, 8, 8, 3)
    """

    def __init__(self, value_range: Any = (0, 255), brightness_factor: Any = None,
                 contrast_factor: Any = None, saturation_factor: Any = None,
                 hue_factor: Any = None, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = value_range_pair("RandomColorJitter", value_range)
        self.brightness_factor = _listed(brightness_factor)
        self.contrast_factor = _listed(contrast_factor)
        self.saturation_factor = _listed(saturation_factor)
        self.hue_factor = _listed(hue_factor)
        common = {"value_range": self.value_range, "seed": seed,
                  "data_format": self.data_format, "dtype": self.dtype_policy}  # fmt: skip
        steps = [(RandomBrightness, brightness_factor), (RandomContrast, contrast_factor),
                 (RandomSaturation, saturation_factor), (RandomHue, hue_factor)]  # fmt: skip
        self.steps = [cls(factor, **common) for cls, factor in steps if factor is not None]

    def transform(self, images: Any, training: bool) -> Any:
        for step in self.steps:
            images = step.transform(images, training)
        return images

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "value_range": list(self.value_range),
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor,
                "hue_factor": self.hue_factor,
            }
        )
        return config


class RandomColorDegeneration(RandomImageAugmentation):
    """In training, blend each RGB image towards its grayscale version by ``f`` drawn per
    image from `factor`: ``x + f (gray - x)`` (0: unchanged, 1: gray), clipped to
    `value_range`. The output is in the compute dtype.

    Args:
        factor: ``f`` in [0, 1]: a number draws from ``[0, f]``, a pair from it.
        value_range: the ``(low, high)`` range of the pixel values.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomColorDegeneration(0.5, (0, 1))(images).shape)
        (2, 8, 8, 3)
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255),
                 data_format: str | None = None, seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor_pair("RandomColorDegeneration", "factor", factor, (0.0, 1.0), False)
        self.value_range = value_range_pair("RandomColorDegeneration", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        gray = ops.image.rgb_to_grayscale(images, data_format=self.data_format)
        f = ops.cast(ops.reshape(self.uniform(ops.shape(images)[0], *self.factor), (-1, 1, 1, 1)),
                     images.dtype)  # fmt: skip
        out = ops.add(images, ops.multiply(f, ops.subtract(gray, images)))
        return ops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config
