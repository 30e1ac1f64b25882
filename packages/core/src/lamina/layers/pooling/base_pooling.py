"""`BasePooling`: windowed max/average pooling behind the MaxPooling and AveragePooling layers."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer


class BasePooling(Layer):
    """Reduce each window of `pool_size` to its max or mean, stepping by `strides`.

    Args:
        pool_size: int or tuple of `pool_dimensions` ints, the window size.
        strides: int, tuple or None (None: `pool_size`, non-overlapping windows).
        padding: ``"valid"`` or ``"same"`` (padded cells are ignored).
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).
        name: the layer name.
    """

    pool_dimensions: int
    """The number of spatial dims (1, 2 or 3); each public subclass fixes it."""
    pool_mode: str
    """``"max"`` or ``"average"``; each public subclass fixes it."""

    def __init__(
        self,
        pool_size: Any = 2,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        layer = type(self).__name__
        self.pool_size = u.normalize_tuple(layer, "pool_size", pool_size, self.pool_dimensions)
        self.strides = (
            self.pool_size
            if strides is None
            else u.normalize_tuple(layer, "strides", strides, self.pool_dimensions)
        )
        self.padding = u.standardize_padding(layer, padding, ("valid", "same"))
        self.data_format = u.standardize_data_format(layer, data_format)
        self.input_spec = InputSpec(ndim=self.pool_dimensions + 2)

    def call(self, inputs: Any) -> Any:
        pool = ops.nn.max_pool if self.pool_mode == "max" else ops.nn.average_pool
        return pool(
            inputs,
            pool_size=self.pool_size,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
        )

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        layer = type(self).__name__
        shape = u.check_rank(layer, input_shape, self.pool_dimensions + 2)
        axes = u.spatial_axes(self.pool_dimensions, self.data_format)
        out = list(shape)
        for a, k, s in zip(axes, self.pool_size, self.strides):
            out[a] = u.conv_output_length(shape[a], k, s, 1, self.padding)
        u.check_output_dims(layer, shape, tuple(out[a] for a in axes))
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config.update(
            {
                "pool_size": self.pool_size,
                "padding": self.padding,
                "strides": self.strides,
                "data_format": self.data_format,
            }
        )
        return config

