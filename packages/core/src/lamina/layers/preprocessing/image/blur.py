"""`RandomGaussianBlur`: blur some images of a batch with a gaussian of random width."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.preprocessing.image._base import (
    RandomImageAugmentation,
    factor_pair,
    probability_pair,
    value_range_pair,
)


def _odd_pair(value: Any) -> tuple[int, int]:
    items = value if isinstance(value, (tuple, list)) else (value, value)
    if len(items) == 2 and all(
        isinstance(k, numbers.Integral) and not isinstance(k, bool) and int(k) % 2 == 1
        for k in items
    ):
        return (int(items[0]), int(items[1]))
    raise ValueError(
        "RandomGaussianBlur: argument `kernel_size` must be an odd int or a pair of odd ints "
        f"(width, height). Received: kernel_size={value!r}"
    )


def gaussian_along(images: Any, axis: int, size: int, sigma: Any) -> Any:
    """Zero-padded gaussian smoothing of a rank-4 batch along `axis` (of static length),
    with an odd `size` of taps and a ``(batch,)`` standard deviation per image."""
    radius = (size - 1) // 2
    offsets = ops.reshape(ops.arange(-radius, radius + 1, dtype="float32"), (1, -1))
    spread = ops.multiply(2.0, ops.square(ops.reshape(sigma, (-1, 1))))
    taps = ops.exp(ops.divide(ops.negative(ops.square(offsets)), spread))
    taps = ops.cast(ops.divide(taps, ops.sum(taps, axis=1, keepdims=True)), images.dtype)
    pads = [(0, 0)] * 4
    pads[axis] = (radius, radius)
    padded = ops.pad(images, pads)
    length = images.shape[axis]
    out = None
    for i in range(size):
        window = ops.take(padded, ops.arange(i, i + length, dtype="int32"), axis=axis)
        term = ops.multiply(window, ops.reshape(taps[:, i], (-1, 1, 1, 1)))
        out = term if out is None else ops.add(out, term)
    return out


class RandomGaussianBlur(RandomImageAugmentation):
    """In training, blur each image with probability drawn from `factor`, with a zero-padded
    gaussian kernel whose standard deviation is drawn per image from `sigma`.

    Args:
        factor: the probability in [0, 1], or a pair ``(lower, upper)`` to draw it from.
        kernel_size: an odd int, or a pair of odd ints ``(width, height)`` as in Keras 3.
        sigma: the standard deviation: a number ``s`` draws from ``[0, s]``, a pair from
            it (a tiny floor keeps it positive).
        value_range: the ``(low, high)`` range of the pixel values (output clipped to it).
        data_format: "channels_last" or "channels_first" (default: the global setting).
        seed: an int seed for the layer's `SeedGenerator`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.RandomGaussianBlur(0.5, sigma=(0.5, 1.5), seed=0)(images)
    """

    def __init__(self, factor: Any = 1.0, kernel_size: Any = 3, sigma: Any = 1.0,
                 value_range: Any = (0, 255), data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = probability_pair("RandomGaussianBlur", factor)
        self.kernel_size = _odd_pair(kernel_size)
        self.sigma = factor_pair(
            "RandomGaussianBlur", "sigma", sigma, (0.0, float("inf")), symmetric=False
        )
        self.value_range = value_range_pair("RandomGaussianBlur", value_range)

    def transform(self, images: Any, training: bool) -> Any:
        rows, cols = self._spatial_axes()
        if images.shape[rows] is None or images.shape[cols] is None:
            raise ValueError(
                "RandomGaussianBlur: the inputs' height and width must be known. "
                f"Received: inputs.shape={tuple(images.shape)}"
            )
        batch = ops.shape(images)[0]
        sigma = ops.add(self.uniform(batch, *self.sigma), 1e-6)
        blurred = gaussian_along(images, cols, self.kernel_size[0], sigma)
        blurred = gaussian_along(blurred, rows, self.kernel_size[1], sigma)
        blurred = ops.clip(blurred, self.value_range[0], self.value_range[1])
        return ops.where(self.applies(batch, self.factor), blurred, images)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "factor": list(self.factor),
                "kernel_size": list(self.kernel_size),
                "sigma": list(self.sigma),
                "value_range": list(self.value_range),
            }
        )
        return config
