"""What the drawing functions share: NumPy images in channels-last order, the data format
argument, class colours, and the lazy matplotlib import with its install hint."""

from __future__ import annotations

import colorsys
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.core._args import data_format as data_format

INSTALL_HINT = 'pip install "lamina[visualization]"'


def pyplot(fn: str) -> Any:
    """`matplotlib.pyplot`, or an ImportError naming the extra that installs it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            f"`{fn}` needs matplotlib, an optional extra of Lamina: {INSTALL_HINT}"
        ) from error
    return plt


def to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(ops.convert_to_numpy(x))


def channels_last(fn: str, images: Any, fmt: str) -> np.ndarray:
    """A batch of images as a NumPy ``(batch, height, width, channels)`` array."""
    x = to_numpy(images)
    if x.ndim != 4:
        raise ValueError(
            f"{fn}: argument `images` must be a batch of images (rank 4). "
            f"Received: images.shape={x.shape}"
        )
    return np.moveaxis(x, 1, -1) if fmt == "channels_first" else x


def restore(images: np.ndarray, fmt: str) -> np.ndarray:
    return np.moveaxis(images, -1, 1) if fmt == "channels_first" else images


def palette(count: int) -> dict[int, tuple[int, int, int]]:
    """`count` distinct RGB colours, hues spread by the golden ratio."""
    colours = {}
    for i in range(count):
        r, g, b = colorsys.hsv_to_rgb((i * 0.618033988749895) % 1.0, 0.75, 0.95)
        colours[i] = (int(r * 255), int(g * 255), int(b * 255))
    return colours


def to_unit(images: np.ndarray, value_range: Any) -> np.ndarray:
    """Images scaled from `value_range` to [0, 1] (what matplotlib shows)."""
    low, high = float(value_range[0]), float(value_range[1])
    if not high > low:
        raise ValueError(
            "argument `value_range` must be a pair (low, high) with low < high. "
            f"Received: value_range={value_range!r}"
        )
    return np.clip((images.astype("float64") - low) / (high - low), 0.0, 1.0)
