"""`Equalization`: per-channel histogram equalization, the cumulative-histogram lookup
table of Pillow's `ImageOps.equalize`, built with tensor ops so it runs in compiled steps."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    ImagePreprocessingLayer,
    positive_int,
    value_range_pair,
)


def channel_histograms(bins_of: Any, bins: int) -> tuple[Any, Any]:
    """Histograms of each image's channels: `bins_of` is a channels-last int32 batch of
    bin indices; returns the ``(batch, channels, bins)`` counts and each pixel's flat index
    into them."""
    shape = ops.shape(bins_of)
    batch, channels = shape[0], shape[3]
    image = ops.reshape(ops.arange(batch, dtype="int32"), (-1, 1, 1, 1))
    channel = ops.reshape(ops.arange(channels, dtype="int32"), (1, 1, 1, -1))
    flat = ops.add(ops.multiply(ops.add(ops.multiply(image, channels), channel), bins), bins_of)
    total = batch * channels * bins
    if isinstance(total, int):  # static sizes (JAX's jit needs them): one segment sum
        ids = ops.reshape(flat, (-1,))
        counts = ops.segment_sum(ops.ones_like(ids, dtype="float32"), ids, num_segments=total)
    else:  # a batch size known only at run time (TensorFlow's `fit`): per-row bincounts
        rows = ops.reshape(ops.transpose(bins_of, (0, 3, 1, 2)), (batch * channels, -1))
        counts = ops.cast(ops.bincount(rows, minlength=bins), "float32")
    return ops.reshape(counts, (-1, channels, bins)), flat


class Equalization(ImagePreprocessingLayer):
    """Equalize each image's channels, in training and inference alike: pixel values are
    put in `bins` bins over `value_range` and remapped through the cumulative histogram
    (Pillow's rule: the last occupied bin is left out, a channel with one occupied bin is
    unchanged). The output is in the compute dtype.

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        bins: the number of histogram bins (256: Pillow's `ImageOps.equalize`).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).integers(0, 60, (2, 8, 8, 3)).astype("float32")
        >>> out = lamina.layers.Equalization()(images)
        >>> tuple(out.shape)
        (2, 8, 8, 3)
    """

    def __init__(self, value_range: Any = (0, 255), bins: int = 256,
                 data_format: str | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range_pair("Equalization", value_range)
        self.bins = positive_int("Equalization", "bins", bins)
        if self.bins < 2:
            raise ValueError(
                f"Equalization: argument `bins` must be at least 2. Received: bins={bins!r}"
            )

    def transform(self, images: Any, training: bool) -> Any:
        x = ops.transpose(images, (0, 2, 3, 1)) if self._channels_first else images
        low, high = self.value_range
        scaled = ops.clip(ops.multiply(ops.subtract(ops.cast(x, "float32"), low),
                                       255.0 / (high - low)), 0.0, 255.0)  # fmt: skip
        bins = self.bins
        index = ops.cast(ops.floor(ops.multiply(scaled, bins / 256.0)), "int32")
        index = ops.clip(index, 0, bins - 1)
        counts, flat = channel_histograms(index, bins)
        positions = ops.arange(bins, dtype="float32")
        last = ops.max(ops.where(ops.greater(counts, 0), positions, -1.0), axis=-1,
                       keepdims=True)  # fmt: skip
        last_count = ops.sum(ops.where(ops.equal(positions, last), counts, 0.0), axis=-1,
                             keepdims=True)  # fmt: skip
        total = ops.sum(counts, axis=-1, keepdims=True)
        step = ops.floor(ops.divide(ops.subtract(total, last_count), bins - 1))
        before = ops.subtract(ops.cumsum(counts, axis=-1), counts)
        lut = ops.floor(ops.divide(ops.add(before, ops.floor(ops.divide(step, 2.0))),
                                   ops.maximum(step, 1.0)))  # fmt: skip
        lut = ops.clip(lut, 0.0, bins - 1.0)
        mapped = ops.take(ops.reshape(lut, (-1,)), flat)
        keep = ops.take(ops.reshape(ops.broadcast_to(ops.equal(step, 0.0), ops.shape(lut)),
                                    (-1,)), flat)  # fmt: skip
        out = ops.add(ops.multiply(mapped, (high - low) / (bins - 1.0)), low)
        out = ops.where(keep, ops.cast(x, "float32"), out)
        out = ops.transpose(out, (0, 3, 1, 2)) if self._channels_first else out
        return ops.cast(out, images.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"value_range": list(self.value_range), "bins": self.bins})
        return config
