"""`RandomPerspective` and `RandomElasticTransform`: random non-affine warps."""

from __future__ import annotations

from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    one_of,
    probability_pair,
)

_INTERPOLATIONS = ("nearest", "bilinear")


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
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandomPerspective(scale=0.3, seed=0)(images).shape)
        (2, 8, 8, 3)
    """

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

    def transform(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        shape = ops.shape(images)
        h = ops.cast(shape[rows], "float32")
        w = ops.cast(shape[cols], "float32")
        start, end = self.corners(shape[0], h, w)
        apply = ops.reshape(self.applies(shape[0], self.factor), (-1, 1, 1))
        end = ops.where(apply, end, start)
        return ops.image.perspective_transform(
            images, ops.cast(start, images.dtype), ops.cast(end, images.dtype),
            interpolation=self.interpolation, fill_value=self.fill_value,
            data_format=self.data_format,
        )  # fmt: skip

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
