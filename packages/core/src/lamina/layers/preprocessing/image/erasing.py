"""`RandomErasing`: blank out a random box of some images (Zhong et al., 2017)."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    probability_pair,
    value_range_pair,
)


class RandomErasing(RandomImageAugmentation):
    """In training, replace a random box of each image, with a probability drawn per image
    from `factor`, by `fill_value` (or, when it is None, by gaussian noise clipped to
    `value_range`). The box's height and width are fractions of the image's, drawn per
    image from `scale`; its position is uniform. The output is in the compute dtype.

    Args:
        factor: the probability in [0, 1] (1: every image), or a pair ``(lower, upper)``
            to draw it from per image.
        scale: ``(lower, upper)`` in [0, 1], the range of the box's side fractions.
        fill_value: the value written in the box; None draws standard-normal noise per
            pixel (clipped to `value_range`).
        value_range: the ``(low, high)`` range of the pixel values.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomErasing(fill_value=0.0, seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    def __init__(self, factor: Any = 1.0, scale: Any = (0.02, 0.33),
                 fill_value: float | None = None, value_range: Any = (0, 255),
                 seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = probability_pair("RandomErasing", factor)
        self.scale = factor_pair("RandomErasing", "scale", scale, (0.0, 1.0), symmetric=False)
        value: Any = fill_value
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise ValueError(
                "RandomErasing: argument `fill_value` must be a number or None. "
                f"Received: fill_value={fill_value!r}"
            )
        self.fill_value = None if value is None else float(value)
        self.value_range = value_range_pair("RandomErasing", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        batch = ops.shape(images)[0]
        sides = (self.uniform(batch, *self.scale), self.uniform(batch, *self.scale))
        inside = ops.logical_and(self.box(images, sides), self.applies(batch, self.factor))
        if self.fill_value is None:
            noise = random.normal(ops.shape(images), dtype="float32", seed=self.seed_generator)
            fill = ops.cast(ops.clip(noise, *self.value_range), images.dtype)
        else:
            fill = ops.cast(ops.full_like(images, self.fill_value), images.dtype)
        return ops.where(inside, fill, images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "factor": list(self.factor),
                "scale": list(self.scale),
                "fill_value": self.fill_value,
                "value_range": list(self.value_range),
            }
        )
        return config
