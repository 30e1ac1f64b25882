"""`RandomContrast` and `RandomBrightness`: random per-image intensity changes."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    value_range_pair,
)


def _per_image(values: Any, dtype: str) -> Any:
    return ops.cast(ops.reshape(values, (-1, 1, 1, 1)), dtype)


class RandomContrast(RandomImageAugmentation):
    """In training, scale each image's deviation from its per-channel mean by a random
    ``c`` in ``[1 - lower, 1 + upper]``: ``(x - mean) * c + mean``, clipped to
    `value_range`. The output is in the compute dtype.

    Args:
        factor: a number in [0, 1] (``c`` in ``[1 - factor, 1 + factor]``) or a pair
            ``(lower, upper)``.
        value_range: the ``(low, high)`` range of the pixel values (output clipped to it).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments (and `data_format`).

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomContrast(0.2, seed=0)(images, training=True)
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, **kwargs)
        self.factor = factor_pair("RandomContrast", "factor", factor, (0.0, 1.0), symmetric=False)
        self.value_range = value_range_pair("RandomContrast", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        lower, upper = self.factor
        batch = ops.shape(images)[0]
        c = _per_image(self.uniform(batch, 1.0 - lower, 1.0 + upper), images.dtype)
        mean = ops.mean(images, axis=self._spatial_axes(), keepdims=True)
        out = ops.add(ops.multiply(ops.subtract(images, mean), c), mean)
        return ops.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config


class RandomBrightness(RandomImageAugmentation):
    """In training, add ``d * (high - low)`` to each image, ``d`` drawn per image from
    ``[lower, upper]``, then clip to `value_range`. The output is in the compute dtype.

    Args:
        factor: a number in [-1, 1] (``d`` in ``[-|factor|, |factor|]``) or a pair
            ``(lower, upper)`` within [-1, 1].
        value_range: the ``(low, high)`` range of the pixel values.
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments (and `data_format`).

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomBrightness(0.1, value_range=(0, 1))(images, training=True)
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, **kwargs)
        self.factor = factor_pair("RandomBrightness", "factor", factor, (-1.0, 1.0))
        self.value_range = value_range_pair("RandomBrightness", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        lower, upper = self.factor
        low, high = self.value_range
        batch = ops.shape(images)[0]
        delta = ops.multiply(self.uniform(batch, lower, upper), high - low)
        out = ops.add(images, _per_image(delta, images.dtype))
        return ops.clip(out, low, high)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"factor": list(self.factor), "value_range": list(self.value_range)})
        return config
