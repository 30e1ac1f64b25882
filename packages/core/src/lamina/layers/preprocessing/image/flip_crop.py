"""`RandomFlip` and `RandomCrop`: random mirror images and random windows."""

from __future__ import annotations

from typing import Any

from lamina import ops, random
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    one_of,
    positive_int,
)
from lamina.layers.preprocessing.image.resizing import _resized_shape

_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class RandomFlip(RandomImageAugmentation):
    """Flip each image left-right and/or up-down, each with probability 1/2, in training.

    Args:
        mode: "horizontal", "vertical" or "horizontal_and_vertical" (independent draws).
        seed: an int seed for the layer's `SeedGenerator`.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomFlip("horizontal", seed=1)(images, training=True)
    """

    def __init__(self, mode: str = "horizontal_and_vertical", seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.mode = one_of("RandomFlip", "mode", mode, _MODES)

    def _maybe_flip(self, images: Any, axis: int) -> Any:
        batch = ops.shape(images)[0]
        draw = random.uniform((batch, 1, 1, 1), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
        return ops.where(ops.less(draw, 0.5), ops.flip(images, axis=axis), images)

    def transform(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = self._maybe_flip(images, cols)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = self._maybe_flip(images, rows)
        return images

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
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomCrop(24, 24, seed=0)(images, training=True)
    """

    def __init__(self, height: int, width: int, seed: int | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height = positive_int("RandomCrop", "height", height)
        self.width = positive_int("RandomCrop", "width", width)

    def call(self, inputs: Any, training: bool = True) -> Any:
        # Inference resizes rather than returning the input: the shape must not change.
        if training:
            return super().call(inputs, training=True)
        rank = len(inputs.shape)
        x = self._prepare(inputs)
        if rank == 3:
            return ops.squeeze(self._resize(ops.expand_dims(x, 0)), 0)
        return self._resize(x)

    def _resize(self, images: Any) -> Any:
        return ops.image.resize(
            images, (self.height, self.width), crop_to_aspect_ratio=True,
            data_format=self.data_format,
        )  # fmt: skip

    def _window(self, images: Any, axis: int, size: int, target: int) -> Any:
        u = random.uniform((), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
        start = ops.cast(ops.floor(ops.multiply(u, float(size - target + 1))), "int32")
        start = ops.minimum(start, size - target)
        indices = ops.add(ops.arange(target, dtype="int32"), start)
        return ops.take(images, indices, axis=axis)

    def transform(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        h, w = images.shape[rows], images.shape[cols]
        if h is None or w is None:
            raise ValueError(
                "RandomCrop: the inputs' height and width must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        if h < self.height or w < self.width:
            return self._resize(images)
        images = self._window(images, rows, h, self.height)
        return self._window(images, cols, w, self.width)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return _resized_shape(tuple(input_shape), (self.height, self.width), self._channels_first)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config
