"""Global pooling: reduce all spatial dims to one max or mean per channel."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

__all__ = [
    "BaseGlobalPooling",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
]


class BaseGlobalPooling(Layer):
    """Shared logic of the global pooling layers.

    Args:
        pool_dimensions: the number of spatial dims (1, 2 or 3).
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).
        keepdims: keep the spatial dims (as size 1) so the output has the input's rank.
    """

    def __init__(
        self,
        pool_dimensions: int,
        data_format: str | None = None,
        keepdims: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.pool_dimensions = pool_dimensions
        self.data_format = u.standardize_data_format(type(self).__name__, data_format)
        if not isinstance(keepdims, bool):
            raise TypeError(
                f"{type(self).__name__}: argument `keepdims` must be a bool. "
                f"Received: keepdims={keepdims!r}"
            )
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=pool_dimensions + 2)

    @property
    def _axes(self) -> tuple[int, ...]:
        return u.spatial_axes(self.pool_dimensions, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = u.check_rank(type(self).__name__, input_shape, self.pool_dimensions + 2)
        if self.keepdims:
            return tuple(1 if i in self._axes else d for i, d in enumerate(shape))
        return (shape[0], shape[u.channel_axis(self.data_format)])

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs: Any) -> Any:
        return ops.mean(inputs, axis=self._axes, keepdims=self.keepdims)


class _GlobalMax(BaseGlobalPooling):
    def call(self, inputs: Any) -> Any:
        return ops.max(inputs, axis=self._axes, keepdims=self.keepdims)


class GlobalAveragePooling1D(BaseGlobalPooling):
    """The mean over time per channel; masked steps (mask False) are left out of the mean.

    Args:
        data_format: ``"channels_last"`` (``(batch, steps, channels)``) or
            ``"channels_first"``; None: the config's.
        keepdims: keep the time dim as size 1.

    Example:
        >>> GlobalAveragePooling1D()(np.ones((2, 5, 3))).shape  # (2, 3)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(1, data_format=data_format, keepdims=keepdims, **kwargs)

    def call(self, inputs: Any, mask: Any = None) -> Any:
        axis = self._axes[0]
        if mask is None:
            return ops.mean(inputs, axis=axis, keepdims=self.keepdims)
        weights = ops.cast(mask, inputs.dtype)
        weights = ops.expand_dims(weights, 2 if self.data_format == "channels_last" else 1)
        total = ops.sum(ops.multiply(inputs, weights), axis=axis, keepdims=self.keepdims)
        count = ops.sum(weights, axis=axis, keepdims=self.keepdims)
        return ops.divide(total, count)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return None


class GlobalAveragePooling2D(_GlobalAverage):
    """The mean over rows and columns per channel.

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        keepdims: keep the spatial dims as size 1.

    Example:
        >>> GlobalAveragePooling2D()(np.ones((2, 4, 4, 3))).shape  # (2, 3)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalAveragePooling3D(_GlobalAverage):
    """The mean over the three spatial dims per channel.

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        keepdims: keep the spatial dims as size 1.

    Example:
        >>> GlobalAveragePooling3D()(np.ones((2, 3, 3, 3, 4))).shape  # (2, 4)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(3, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling1D(_GlobalMax):
    """The max over time per channel.

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        keepdims: keep the time dim as size 1.

    Example:
        >>> GlobalMaxPooling1D()(np.ones((2, 5, 3))).shape  # (2, 3)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(1, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling2D(_GlobalMax):
    """The max over rows and columns per channel.

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        keepdims: keep the spatial dims as size 1.

    Example:
        >>> GlobalMaxPooling2D()(np.ones((2, 4, 4, 3))).shape  # (2, 3)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(2, data_format=data_format, keepdims=keepdims, **kwargs)


class GlobalMaxPooling3D(_GlobalMax):
    """The max over the three spatial dims per channel.

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        keepdims: keep the spatial dims as size 1.

    Example:
        >>> GlobalMaxPooling3D()(np.ones((2, 3, 3, 3, 4))).shape  # (2, 4)
    """

    def __init__(
        self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(3, data_format=data_format, keepdims=keepdims, **kwargs)
