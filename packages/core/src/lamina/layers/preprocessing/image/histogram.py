"""`Equalization` (Pillow's `ImageOps.equalize` rule) and
`ContrastLimitedAdaptiveHistogramEqualization` (OpenCV's CLAHE rule): histogram lookup
tables built with tensor ops, so they run in compiled steps."""

from __future__ import annotations

import math
import numbers
from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    ImagePreprocessingLayer,
    positive_int,
    value_range_pair,
)


def row_histograms(rows: Any, bins: int) -> Any:
    """Counts of the values ``0 .. bins - 1`` in each row of a rank-2 int32 tensor."""
    count = ops.shape(rows)[0]
    if isinstance(count, int):  # static sizes (JAX's jit needs them): one segment sum
        offsets = ops.reshape(ops.multiply(ops.arange(count, dtype="int32"), bins), (-1, 1))
        ids = ops.reshape(ops.add(rows, offsets), (-1,))
        counts = ops.segment_sum(ops.ones_like(ids, dtype="float32"), ids,
                                 num_segments=count * bins)  # fmt: skip
        return ops.reshape(counts, (count, bins))
    # A batch size known only at run time (TensorFlow's `fit`): per-row bincounts.
    return ops.cast(ops.bincount(rows, minlength=bins), "float32")


def channel_histograms(bins_of: Any, bins: int) -> tuple[Any, Any]:
    """Histograms of each image's channels: `bins_of` is a channels-last int32 batch of
    bin indices; returns the ``(batch, channels, bins)`` counts and each pixel's flat index
    into them."""
    shape = ops.shape(bins_of)
    batch, channels = shape[0], shape[3]
    image = ops.reshape(ops.arange(batch, dtype="int32"), (-1, 1, 1, 1))
    channel = ops.reshape(ops.arange(channels, dtype="int32"), (1, 1, 1, -1))
    flat = ops.add(ops.multiply(ops.add(ops.multiply(image, channels), channel), bins), bins_of)
    rows = ops.reshape(ops.transpose(bins_of, (0, 3, 1, 2)), (batch * channels, -1))
    return ops.reshape(row_histograms(rows, bins), (-1, channels, bins)), flat


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


def _grid_pair(value: Any) -> tuple[int, int]:
    if (
        isinstance(value, (tuple, list)) and len(value) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and int(v) > 0
                for v in value)
    ):  # fmt: skip
        return (int(value[0]), int(value[1]))
    raise ValueError(
        "ContrastLimitedAdaptiveHistogramEqualization: argument `tile_grid_size` must be a "
        f"pair of positive ints (rows, columns). Received: tile_grid_size={value!r}"
    )


def _clipped_lut(counts: Any, clip_limit: float, tile_pixels: int) -> Any:
    """OpenCV's CLAHE table per row of 256-bin `counts`: bins clipped at the limit, the
    excess spread evenly (the remainder one count every `step` bins), then the scaled
    cumulative sum, rounded."""
    limit = float(max(int(clip_limit * tile_pixels / 256), 1))
    excess = ops.sum(ops.maximum(ops.subtract(counts, limit), 0.0), axis=-1, keepdims=True)
    counts = ops.minimum(counts, limit)
    share = ops.floor(ops.divide(excess, 256.0))
    counts = ops.add(counts, share)
    residual = ops.subtract(excess, ops.multiply(share, 256.0))
    step = ops.maximum(ops.floor(ops.divide(256.0, ops.maximum(residual, 1.0))), 1.0)
    position = ops.arange(256, dtype="float32")
    extra = ops.logical_and(
        ops.equal(ops.mod(position, step), 0.0),
        ops.less(ops.floor(ops.divide(position, step)), residual),
    )
    counts = ops.add(counts, ops.cast(extra, "float32"))
    table = ops.multiply(ops.cumsum(counts, axis=-1), 255.0 / tile_pixels)
    return ops.clip(ops.floor(ops.add(table, 0.5)), 0.0, 255.0)


class ContrastLimitedAdaptiveHistogramEqualization(ImagePreprocessingLayer):
    """Contrast-limited adaptive histogram equalization (CLAHE), in training and inference
    alike, by OpenCV's rule: the image (reflect-padded to whole tiles) is cut into
    `tile_grid_size` tiles; each tile's 256-bin channel histograms are clipped at
    ``clip_limit * tile_pixels / 256`` with the excess spread over all bins; each pixel
    maps through the bilinear blend of its four nearest tiles' cumulative tables. The
    output is in the compute dtype, on `value_range`.

    Args:
        value_range: the ``(low, high)`` range of the pixel values.
        clip_limit: the contrast limit, positive (larger: closer to plain equalization).
        tile_grid_size: ``(rows, columns)`` of tiles.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).integers(0, 90, (2, 16, 16, 3)).astype("float32")
        >>> clahe = lamina.layers.ContrastLimitedAdaptiveHistogramEqualization(
        ...     tile_grid_size=(2, 2))
        >>> tuple(clahe(images).shape)
        (2, 16, 16, 3)
    """

    def __init__(self, value_range: Any = (0, 255), clip_limit: float = 4.0,
                 tile_grid_size: Any = (8, 8), data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(data_format=data_format, **kwargs)
        name = "ContrastLimitedAdaptiveHistogramEqualization"
        self.value_range = value_range_pair(name, value_range)
        value: Any = clip_limit
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or float(value) <= 0:
            raise ValueError(
                f"{name}: argument `clip_limit` must be a positive number. "
                f"Received: clip_limit={clip_limit!r}"
            )
        self.clip_limit: float = float(value)
        self.tile_grid_size: tuple[int, int] = _grid_pair(tile_grid_size)

    def transform(self, images: Any, training: bool) -> Any:
        x = ops.transpose(images, (0, 2, 3, 1)) if self._channels_first else images
        h, w, c = x.shape[1], x.shape[2], x.shape[3]
        if h is None or w is None or c is None:
            raise ValueError(
                "ContrastLimitedAdaptiveHistogramEqualization: the inputs' height, width and "
                f"channels must be known. Received: inputs.shape={tuple(images.shape)}"
            )
        low, high = self.value_range
        scaled = ops.multiply(ops.subtract(ops.cast(x, "float32"), low), 255.0 / (high - low))
        index = ops.cast(ops.clip(ops.floor(scaled), 0.0, 255.0), "int32")
        gh, gw = self.tile_grid_size
        th, tw = math.ceil(h / gh), math.ceil(w / gw)
        padded = index
        if gh * th > h or gw * tw > w:
            padded = ops.pad(index, [(0, 0), (0, gh * th - h), (0, gw * tw - w), (0, 0)],
                             mode="reflect")  # fmt: skip
        tiles = ops.reshape(padded, (-1, gh, th, gw, tw, c))
        rows = ops.reshape(ops.transpose(tiles, (0, 1, 3, 5, 2, 4)), (-1, th * tw))
        lut = ops.reshape(_clipped_lut(row_histograms(rows, 256), self.clip_limit, th * tw),
                          (-1,))  # fmt: skip

        def neighbours(length: int, size: int, grid: int) -> tuple[Any, Any, Any]:
            where = ops.subtract(ops.divide(ops.arange(length, dtype="float32"), size), 0.5)
            first = ops.floor(where)
            weight = ops.subtract(where, first)
            lower = ops.cast(ops.maximum(first, 0.0), "int32")
            upper = ops.cast(ops.minimum(ops.add(first, 1.0), grid - 1.0), "int32")
            return lower, upper, weight

        y1, y2, wy = (ops.reshape(t, (1, -1, 1, 1)) for t in neighbours(h, th, gh))
        x1, x2, wx = (ops.reshape(t, (1, 1, -1, 1)) for t in neighbours(w, tw, gw))
        batch = ops.reshape(ops.arange(ops.shape(x)[0], dtype="int32"), (-1, 1, 1, 1))
        channel = ops.reshape(ops.arange(c, dtype="int32"), (1, 1, 1, -1))

        def table(ty: Any, tx: Any) -> Any:
            tile = ops.add(ops.multiply(ops.add(ops.multiply(batch, gh), ty), gw), tx)
            at = ops.add(ops.multiply(ops.add(ops.multiply(tile, c), channel), 256), index)
            return ops.take(lut, at)

        top = ops.add(ops.multiply(table(y1, x1), ops.subtract(1.0, wx)),
                      ops.multiply(table(y1, x2), wx))  # fmt: skip
        bottom = ops.add(ops.multiply(table(y2, x1), ops.subtract(1.0, wx)),
                         ops.multiply(table(y2, x2), wx))  # fmt: skip
        out = ops.add(ops.multiply(top, ops.subtract(1.0, wy)), ops.multiply(bottom, wy))
        out = ops.clip(ops.floor(ops.add(out, 0.5)), 0.0, 255.0)
        out = ops.add(ops.multiply(out, (high - low) / 255.0), low)
        out = ops.transpose(out, (0, 3, 1, 2)) if self._channels_first else out
        return ops.cast(out, images.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "value_range": list(self.value_range),
                "clip_limit": self.clip_limit,
                "tile_grid_size": list(self.tile_grid_size),
            }
        )
        return config
