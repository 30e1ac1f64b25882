"""`MixUp` and `CutMix`: mix each image of a batch with another image of the same batch."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import RandomImageAugmentation, factor_pair


class MixUp(RandomImageAugmentation):
    """In training, replace image ``i`` by ``w x_i + (1 - w) x_p(i)``, with ``p`` a random
    permutation of the batch and ``w ~ Beta(alpha, alpha)`` drawn per image. The output is
    in the compute dtype. A dict input's ``labels`` (one-hot or soft) are mixed with the
    same weights.

    Args:
        alpha: the Beta distribution's concentration, positive (small: weights near 0 or 1).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.MixUp(alpha=0.2, seed=0)(images, training=True)
    """

    dict_inputs = _dict_inputs.MIXING

    def __init__(self, alpha: float = 0.2, data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        value: Any = alpha
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) > 0:
            raise ValueError(
                f"MixUp: argument `alpha` must be a positive number. Received: alpha={alpha!r}"
            )
        self.alpha: float = float(value)

    def transform(self, images: Any, training: bool) -> Any:
        return self.mix(images)[0]

    def mix(self, images: Any) -> tuple[Any, Any, Any]:
        """The mixed images, the partner order and each image's own weight ``(batch,)``."""
        batch = ops.shape(images)[0]
        order = random.shuffle(ops.arange(batch, dtype="int32"), seed=self.seed_generator)
        weight = random.beta((batch,), self.alpha, self.alpha, dtype="float32",
                             seed=self.seed_generator)  # fmt: skip
        w = ops.cast(ops.reshape(weight, (-1, 1, 1, 1)), images.dtype)
        partner = ops.take(images, order, axis=0)
        mixed = ops.add(ops.multiply(w, images), ops.multiply(ops.subtract(1.0, w), partner))
        return mixed, order, weight

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


class CutMix(RandomImageAugmentation):
    """In training, paste into each image a box cut from another image of the batch (a
    random permutation). Each box covers a fraction ``1 - w`` of the image's side lengths
    squared, ``w ~ Beta(a, a)`` per image with ``a`` drawn per call from `factor`; its
    position is uniform. The output is in the compute dtype; a dict input's ``labels`` are
    mixed by the fraction of each image that was pasted.

    Args:
        factor: the Beta concentration's range, in [0, 1]: a number ``f`` draws from
            ``[0, f]``, a pair from it.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.CutMix(seed=0)(images, training=True)
    """

    dict_inputs = _dict_inputs.MIXING

    def __init__(self, factor: Any = 1.0, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = factor_pair("CutMix", "factor", factor, (0.0, 1.0), symmetric=False)

    def transform(self, images: Any, training: bool) -> Any:
        return self.mix(images)[0]

    def mix(self, images: Any) -> tuple[Any, Any, Any]:
        """The mixed images, the partner order and the fraction of each image kept."""
        batch = ops.shape(images)[0]
        a = ops.add(self.uniform(1, *self.factor), 1e-6)
        # Beta(a, a) as X / (X + Y) with X, Y ~ Gamma(a): `random.beta` of a traced float32
        # concentration fails on TensorFlow, which samples its gammas in float64.
        x = random.gamma((batch,), a[0], dtype="float32", seed=self.seed_generator)
        y = random.gamma((batch,), a[0], dtype="float32", seed=self.seed_generator)
        weight = ops.divide(x, ops.maximum(ops.add(x, y), 1e-12))
        ratio = ops.sqrt(ops.clip(ops.subtract(1.0, weight), 0.0, 1.0))
        inside = self.box(images, (ratio, ratio))
        order = random.shuffle(ops.arange(batch, dtype="int32"), seed=self.seed_generator)
        mixed = ops.where(inside, ops.take(images, order, axis=0), images)
        inside = ops.broadcast_to(inside, ops.shape(images))
        kept = ops.subtract(1.0, ops.mean(ops.cast(inside, "float32"), axis=(1, 2, 3)))
        return mixed, order, kept

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["factor"] = list(self.factor)
        return config
