"""`RandAugment` and `AugMix`: augmentation policies that pick, per image, among a pool
of the other image layers set to one strength. Every candidate is computed and the
chosen one selected, so the choice is a tensor op (it runs in compiled steps). In dict
inputs the boxes and masks of each image go through the draw of the layer it picked
(`_dict_inputs.follow`); labels pass through."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    one_of,
    value_range_pair,
)
from lamina.layers.preprocessing.image.affine import RandomRotation, RandomShear, RandomTranslation
from lamina.layers.preprocessing.image.color import RandomBrightness, RandomContrast
from lamina.layers.preprocessing.image.histogram import Equalization
from lamina.layers.preprocessing.image.hsv import RandomSharpness
from lamina.layers.preprocessing.image.intensity import (
    AutoContrast,
    RandomPosterization,
    Solarization,
)
from lamina.layers.preprocessing.image.jitter import RandomColorDegeneration


def _pool(m: float, value_range: tuple[float, float], interpolation: str, seed: int | None,
          data_format: str, colors: bool, box_format: str | None) -> list[Any]:  # fmt: skip
    """The candidate layers at strength `m` in [0, 1]: geometric and tonal ones, and with
    `colors` also brightness, contrast, color and sharpness; the geometric ones read boxes
    in `box_format`."""
    geo: dict[str, Any] = {"interpolation": interpolation, "seed": seed, "data_format": data_format}
    geo["bounding_box_format"] = box_format
    tone: dict[str, Any] = {"value_range": value_range, "seed": seed, "data_format": data_format}
    bits = max(1, 8 - round(4 * m))
    pool = [
        RandomShear(x_factor=0.3 * m, **geo),
        RandomShear(y_factor=0.3 * m, **geo),
        RandomTranslation(0.0, 0.3 * m, **geo),
        RandomTranslation(0.3 * m, 0.0, **geo),
        RandomRotation(m / 12.0, **geo),
        RandomPosterization((bits, 8), **tone),
        Solarization(threshold_factor=(1.0 - m, 1.0), **tone),
        AutoContrast(value_range=value_range, data_format=data_format),
        Equalization(value_range=value_range, data_format=data_format),
    ]
    if colors:
        pool += [
            RandomBrightness(0.4 * m, **tone),
            RandomContrast(0.9 * m, **tone),
            RandomColorDegeneration(m, **tone),
            RandomSharpness((0.5, 0.5 + 0.5 * m), **tone),
        ]
    return pool


class _PolicyBase(RandomImageAugmentation):
    """Shared arguments and the per-image pick among `self.pool`."""

    dict_inputs = _dict_inputs.POLICY
    moves_boxes = True

    def _common(self, value_range: Any, factor: Any, interpolation: str) -> None:
        name = type(self).__name__
        self.value_range = value_range_pair(name, value_range)
        self.factor = factor_pair(name, "factor", factor, (0.0, 1.0), symmetric=False)
        self.interpolation = one_of(name, "interpolation", interpolation, ("nearest", "bilinear"))

    def pick(self, images: Any, boxes: Any = None, masks: Any = None) -> tuple[Any, Any, Any]:
        """Each image through one layer of the pool, chosen uniformly per image, and its
        boxes and masks (batched; None when absent) through the same draw of that layer."""
        batch = ops.shape(images)[0]
        choice = ops.floor(ops.multiply(self.uniform(batch, 0.0, 1.0), len(self.pool)))
        out = (images, boxes, masks)
        for i, layer in enumerate(self.pool):
            picked = ops.equal(choice, float(i))
            moved = _dict_inputs.follow(layer, images, boxes, masks)
            out = tuple(_dict_inputs.select(picked, new, old) for new, old in zip(moved, out))
        return out

    def mask_dtype(self, dtype: Any) -> Any:
        """The dtype of the segmentation masks out of a dict input: theirs."""
        return dtype

    def transform(self, images: Any, training: bool) -> Any:
        return self.transform_dict(images, None, None)[0]

    def transform_dict(self, images: Any, boxes: Any, masks: Any) -> tuple[Any, Any, Any]:
        """The policy on a batch of images and its boxes and masks (None when absent)."""
        raise TypeError(f"{type(self).__name__} must define `transform_dict`.")

    def gammas(self, shape: tuple[Any, ...], alpha: float) -> Any:
        return random.gamma(shape, alpha, dtype="float32", seed=self.seed_generator)


class RandAugment(_PolicyBase):
    """In training, pass each image through `num_ops` layers in turn, each picked per
    image at random from a pool (shear x/y, translate x/y, rotate, posterize, solarize,
    auto-contrast, equalize, brightness, contrast, color, sharpness) set to the strength
    `factor` (RandAugment, Cubuk et al., 2019). Output in the compute dtype. In a dict
    input each image's boxes and masks go through the layers it went through (a
    translated image takes its boxes along; boxes pushed out get the label -1), and its
    labels pass through.

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        num_ops: how many layers each image goes through.
        factor: the strength in [0, 1] (a pair: its upper value).
        interpolation: "nearest" or "bilinear", for the geometric layers.
        seed: an int seed for the layer's `SeedGenerator` (and the pool's).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.RandAugment((0, 1), seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    def __init__(self, value_range: Any = (0, 255), num_ops: int = 2, factor: Any = 0.5,
                 interpolation: str = "bilinear", seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._common(value_range, factor, interpolation)
        if not (isinstance(num_ops, numbers.Integral) and not isinstance(num_ops, bool)
                and num_ops >= 0):  # fmt: skip
            raise ValueError(
                "RandAugment: argument `num_ops` must be a non-negative int. "
                f"Received: num_ops={num_ops!r}"
            )
        self.num_ops: int = int(num_ops)
        self.pool = _pool(self.factor[1], self.value_range, self.interpolation, seed,
                          self.data_format, True, self.bounding_box_format)  # fmt: skip

    def transform_dict(self, images: Any, boxes: Any, masks: Any) -> tuple[Any, Any, Any]:
        for _ in range(self.num_ops):
            images, boxes, masks = self.pick(images, boxes, masks)
        return images, boxes, masks

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "value_range": list(self.value_range),
                "num_ops": self.num_ops,
                "factor": list(self.factor),
                "interpolation": self.interpolation,
            }
        )
        return config


def _depth_pair(value: Any) -> tuple[int, int]:
    items = [value, value] if isinstance(value, numbers.Integral) else value
    if (
        isinstance(items, (list, tuple)) and len(items) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items)
        and min(items) >= 1
    ):  # fmt: skip
        return (int(min(items)), int(max(items)))
    raise ValueError(
        "AugMix: argument `chain_depth` must be a positive int or a pair of them. "
        f"Received: chain_depth={value!r}"
    )


def _scaled(weight: Any, x: Any) -> Any:
    """Each sample of `x` times its ``(batch,)`` `weight`, in `x`'s dtype."""
    w = ops.reshape(weight, (-1,) + (1,) * (len(x.shape) - 1))
    return ops.multiply(ops.cast(w, x.dtype), x)


class AugMix(_PolicyBase):
    """In training, mix each image with `num_chains` augmented copies (AugMix, Hendrycks
    et al., 2020): chain ``i`` applies ``d`` layers picked per image from a pool set to the
    strength `factor` (``d`` drawn per image from `chain_depth`); the chains are averaged
    with Dirichlet(alpha) weights and the result blended with the image by a
    Beta(alpha, alpha) weight. Output in the compute dtype. In a dict input the labels and
    bounding boxes pass through, as in Keras 3, and the segmentation masks go through each
    chain's layers and are blended with the same weights (so they come out fractional, in
    the compute dtype).

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        num_chains: how many augmented copies are mixed.
        chain_depth: layers per chain: an int, or a pair ``(lower, upper)`` to draw from.
        factor: the strength in [0, 1] (a pair: its upper value).
        alpha: the Dirichlet and Beta concentration, positive.
        all_operations: include brightness, contrast, color and sharpness in the pool
            (the paper leaves them out, as they overlap common test corruptions).
        interpolation: "nearest" or "bilinear", for the geometric layers.
        seed: an int seed for the layer's `SeedGenerator` (and the pool's).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> tuple(lamina.layers.AugMix((0, 1), seed=0)(images).shape)
        (2, 8, 8, 3)
    """

    moves_boxes = False  # as in Keras 3: the boxes pass through

    def __init__(self, value_range: Any = (0, 255), num_chains: int = 3,
                 chain_depth: Any = (1, 3), factor: Any = 0.3, alpha: float = 1.0,
                 all_operations: bool = True, interpolation: str = "bilinear",
                 seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self._common(value_range, factor, interpolation)
        if not (isinstance(num_chains, numbers.Integral) and not isinstance(num_chains, bool)
                and num_chains >= 1):  # fmt: skip
            raise ValueError(
                "AugMix: argument `num_chains` must be a positive int. "
                f"Received: num_chains={num_chains!r}"
            )
        self.num_chains: int = int(num_chains)
        self.chain_depth: tuple[int, int] = _depth_pair(chain_depth)
        value: Any = alpha
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
            raise ValueError(
                f"AugMix: argument `alpha` must be a positive number. Received: alpha={alpha!r}"
            )
        self.alpha: float = float(value)
        self.all_operations: bool = bool(all_operations)
        self.pool = _pool(self.factor[1], self.value_range, self.interpolation, seed,
                          self.data_format, self.all_operations, None)  # fmt: skip

    def mask_dtype(self, dtype: Any) -> Any:
        """The dtype of the (blended) segmentation masks out of a dict input."""
        return self.compute_dtype

    def transform_dict(self, images: Any, boxes: Any, masks: Any) -> tuple[Any, Any, Any]:
        batch = ops.shape(images)[0]
        g = self.gammas((batch, self.num_chains), self.alpha)
        weights = ops.divide(g, ops.maximum(ops.sum(g, axis=1, keepdims=True), 1e-12))
        x, y = self.gammas((batch,), self.alpha), self.gammas((batch,), self.alpha)
        keep = ops.divide(x, ops.maximum(ops.add(x, y), 1e-12))
        lower, upper = self.chain_depth
        # Images and masks, chained and mixed alike (masks: None, or float32 from here).
        start = (images, None if masks is None else ops.cast(masks, "float32"))
        mixed = [None if t is None else ops.zeros_like(t) for t in start]
        for chain in range(self.num_chains):
            depth = ops.floor(self.uniform(batch, float(lower), float(upper) + 1.0))
            depth = ops.minimum(depth, float(upper))
            out = start
            for step in range(upper):
                new, _, new_masks = self.pick(out[0], None, out[1])
                going = ops.less(float(step), depth)
                out = (_dict_inputs.select(going, new, out[0]),
                       _dict_inputs.select(going, new_masks, out[1]))  # fmt: skip
            mixed = [None if t is None else ops.add(m, _scaled(weights[:, chain], t))
                     for m, t in zip(mixed, out)]  # fmt: skip
        result = [None if t is None else ops.add(_scaled(keep, t),
                                                 _scaled(ops.subtract(1.0, keep), m))
                  for t, m in zip(start, mixed)]  # fmt: skip
        blended = None if result[1] is None else ops.cast(result[1], self.compute_dtype)
        return result[0], boxes, blended

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "value_range": list(self.value_range),
                "num_chains": self.num_chains,
                "chain_depth": list(self.chain_depth),
                "factor": list(self.factor),
                "alpha": self.alpha,
                "all_operations": self.all_operations,
                "interpolation": self.interpolation,
            }
        )
        return config
