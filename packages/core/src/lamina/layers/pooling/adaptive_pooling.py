"""Adaptive pooling: windows sized so the output has a fixed `output_size` (PyTorch's bins)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

__all__ = [
    "AdaptiveAveragePooling1D",
    "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D",
    "AdaptiveMaxPooling1D",
    "AdaptiveMaxPooling2D",
    "AdaptiveMaxPooling3D",
    "BaseAdaptivePooling",
]


class BaseAdaptivePooling(Layer):
    """Pool any input size down to `output_size`; bin i of n over length L covers
    ``[floor(i * L / n), ceil((i + 1) * L / n))``.

    Args:
        output_size: int or tuple of `pool_dimensions` ints.
        pool_dimensions: the number of spatial dims (1, 2 or 3).
        pool_mode: ``"max"`` or ``"average"``.
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).
    """

    def __init__(
        self,
        output_size: Any,
        pool_dimensions: int,
        pool_mode: str = "average",
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        layer = type(self).__name__
        self.output_size = u.normalize_tuple(layer, "output_size", output_size, pool_dimensions)
        if pool_mode not in ("max", "average"):
            raise ValueError(
                f"{layer}: argument `pool_mode` must be 'max' or 'average'. "
                f"Received: pool_mode={pool_mode!r}"
            )
        self.pool_dimensions = pool_dimensions
        self.pool_mode = pool_mode
        self.data_format = u.standardize_data_format(layer, data_format)
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)

    def call(self, inputs: Any) -> Any:
        pool = (
            ops.nn.adaptive_max_pool if self.pool_mode == "max" else ops.nn.adaptive_average_pool
        )
        return pool(inputs, self.output_size, data_format=self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = u.check_rank(type(self).__name__, input_shape, self.pool_dimensions + 2)
        out = list(shape)
        for axis, size in zip(u.spatial_axes(self.pool_dimensions, self.data_format),
                              self.output_size):  # fmt: skip
            out[axis] = size
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config.update({"output_size": self.output_size, "data_format": self.data_format})
        return config


class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """Mean pooling to a fixed output size over sequences.

    Args:
        output_size: int or tuple of 1 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveAveragePooling1D(4)(np.ones((2, 9, 3))).shape  # (2, 4, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 1, "average", data_format=data_format, **kwargs)


class AdaptiveAveragePooling2D(BaseAdaptivePooling):
    """Mean pooling to a fixed output size over images.

    Args:
        output_size: int or tuple of 2 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveAveragePooling2D((4, 2))(np.ones((2, 9, 7, 3))).shape  # (2, 4, 2, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 2, "average", data_format=data_format, **kwargs)


class AdaptiveAveragePooling3D(BaseAdaptivePooling):
    """Mean pooling to a fixed output size over volumes.

    Args:
        output_size: int or tuple of 3 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveAveragePooling3D(2)(np.ones((2, 5, 5, 5, 3))).shape  # (2, 2, 2, 2, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 3, "average", data_format=data_format, **kwargs)


class AdaptiveMaxPooling1D(BaseAdaptivePooling):
    """Max pooling to a fixed output size over sequences.

    Args:
        output_size: int or tuple of 1 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveMaxPooling1D(4)(np.ones((2, 9, 3))).shape  # (2, 4, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 1, "max", data_format=data_format, **kwargs)


class AdaptiveMaxPooling2D(BaseAdaptivePooling):
    """Max pooling to a fixed output size over images.

    Args:
        output_size: int or tuple of 2 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveMaxPooling2D((4, 2))(np.ones((2, 9, 7, 3))).shape  # (2, 4, 2, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 2, "max", data_format=data_format, **kwargs)


class AdaptiveMaxPooling3D(BaseAdaptivePooling):
    """Max pooling to a fixed output size over volumes.

    Args:
        output_size: int or tuple of 3 ints, the output's spatial size.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> AdaptiveMaxPooling3D(2)(np.ones((2, 5, 5, 5, 3))).shape  # (2, 2, 2, 2, 3)
    """

    def __init__(self, output_size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(output_size, 3, "max", data_format=data_format, **kwargs)
