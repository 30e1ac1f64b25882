"""`RandomFlip` and `RandomCrop`: random mirror images and random windows."""

from __future__ import annotations

from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image import _dict_inputs
from lamina.layers.preprocessing.image._base import (
    ImagePreprocessingLayer,
    RandomImageAugmentation,
    one_of,
    positive_int,
)
from lamina.layers.preprocessing.image.resizing import _resized_shape, aspect_crop

_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class RandomFlip(RandomImageAugmentation):
    """Flip each image left-right and/or up-down, each with probability 1/2, in training.

    Args:
        mode: "horizontal", "vertical" or "horizontal_and_vertical" (independent draws).
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs whose
            ``bounding_boxes`` and ``segmentation_masks`` flip with the images.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomFlip("horizontal", seed=1)(images, training=True)
    """

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(self, mode: str = "horizontal_and_vertical", seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.mode = one_of("RandomFlip", "mode", mode, _MODES)

    def draw(self, images: Any, training: bool) -> Any:
        batch = ops.shape(images)[0]
        flips: list[Any] = []
        for mode in ("horizontal", "vertical"):
            if self.mode in (mode, "horizontal_and_vertical"):
                u = random.uniform((batch,), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
                flips.append(ops.less(u, 0.5))
            else:
                flips.append(None)
        return flips

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        rows, cols = self._spatial_axes()
        for flip, axis in zip(params, (cols, rows), strict=True):
            if flip is not None:
                where = ops.reshape(flip, (-1, 1, 1, 1))
                images = ops.where(where, ops.flip(images, axis=axis), images)
        return images

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        # x -> width - x where flipped left-right, y -> height - y where flipped up-down.
        scales, offsets = [], []
        for flip, extent in zip(params, (size[1], size[0]), strict=True):
            sign = 1.0 if flip is None else ops.where(flip, -1.0, 1.0)
            scales.append(sign)
            offsets.append(ops.multiply(ops.divide(ops.subtract(1.0, sign), 2.0),
                                        ops.cast(extent, "float32")))  # fmt: skip
        return [scales[0], 0.0, offsets[0], 0.0, scales[1], offsets[1]]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["mode"] = self.mode
        return config


class RandomCrop(RandomImageAugmentation):
    """Crop a random ``(height, width)`` window (one window per batch) in training; at
    inference, and for images smaller than the window, resize after a centre crop to the
    target aspect ratio (Keras 3's behaviour). The output is in the compute dtype.

    Args:
        height: output height.
        width: output width.
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments, and `bounding_box_format` for dict inputs.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomCrop(24, 24, seed=0)(images, training=True)
    """

    dict_inputs = _dict_inputs.GEOMETRIC

    def __init__(self, height: int, width: int, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height = positive_int("RandomCrop", "height", height)
        self.width = positive_int("RandomCrop", "width", width)

    def call(self, inputs: Any, training: bool = True) -> Any:
        # Active at inference too, where it resizes: the shape must not change.
        return ImagePreprocessingLayer.call(self, inputs, training)

    def _start(self, size: int, target: int) -> Any:
        u = random.uniform((), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
        start = ops.cast(ops.floor(ops.multiply(u, float(size - target + 1))), "int32")
        return ops.minimum(start, size - target)

    def draw(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        h, w = images.shape[rows], images.shape[cols]
        if h is None or w is None:
            raise ValueError(
                "RandomCrop: the inputs' height and width must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        if not training or h < self.height or w < self.width:
            return None  # a centre crop to the aspect ratio, resized
        return (self._start(h, self.height), self._start(w, self.width))

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        size = (self.height, self.width)
        if params is None:
            return aspect_crop(images, size, self.data_format, masks)
        rows, cols = self._spatial_axes()
        for axis, start, target in zip((rows, cols), params, size, strict=True):
            images = ops.take(images, ops.add(ops.arange(target, dtype="int32"), start), axis)
        return images

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        if params is None:
            window = _dict_inputs.resize_window(size, out_size, "crop")
            return _dict_inputs.window_map(window, out_size)
        top, left = (ops.cast(p, "float32") for p in params)
        return [1.0, 0.0, ops.negative(left), 0.0, 1.0, ops.negative(top)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        return _resized_shape(tuple(input_shape), (self.height, self.width), self._channels_first)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config
