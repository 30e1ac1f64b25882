"""`AveragePooling1D`, `AveragePooling2D` and `AveragePooling3D`."""

from __future__ import annotations

from lamina.layers.pooling.base_pooling import BasePooling

__all__ = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D"]


class AveragePooling1D(BasePooling):
    """The mean of each window over sequences.

    Args:
        pool_size: int or tuple of 1 ints, the window size.
        strides: int, tuple of 1 ints or None (None: `pool_size`).
        padding: ``"valid"`` or ``"same"`` (output size ``ceil(input / strides)``).
        data_format: ``"channels_last"`` (inputs ``(batch, steps, channels)``) or
            ``"channels_first"``;
            None: `lamina.config.image_data_format()`.
        name: the layer name.

    Example:
        >>> AveragePooling1D()(np.ones((2, 8, 3))).shape  # (2, 4, 3)
    """

    pool_dimensions = 1
    pool_mode = "average"


class AveragePooling2D(BasePooling):
    """The mean of each window over images.

    Args:
        pool_size: int or tuple of 2 ints, the window size.
        strides: int, tuple of 2 ints or None (None: `pool_size`).
        padding: ``"valid"`` or ``"same"`` (output size ``ceil(input / strides)``).
        data_format: ``"channels_last"`` (inputs ``(batch, rows, cols, channels)``) or
            ``"channels_first"``;
            None: `lamina.config.image_data_format()`.
        name: the layer name.

    Example:
        >>> AveragePooling2D()(np.ones((2, 8, 8, 3))).shape  # (2, 4, 4, 3)
    """

    pool_dimensions = 2
    pool_mode = "average"


class AveragePooling3D(BasePooling):
    """The mean of each window over volumes.

    Args:
        pool_size: int or tuple of 3 ints, the window size.
        strides: int, tuple of 3 ints or None (None: `pool_size`).
        padding: ``"valid"`` or ``"same"`` (output size ``ceil(input / strides)``).
        data_format: ``"channels_last"`` (inputs ``(batch, d1, d2, d3, channels)``) or
            ``"channels_first"``;
            None: `lamina.config.image_data_format()`.
        name: the layer name.

    Example:
        >>> AveragePooling3D()(np.ones((2, 4, 4, 4, 3))).shape  # (2, 2, 2, 2, 3)
    """

    pool_dimensions = 3
    pool_mode = "average"
