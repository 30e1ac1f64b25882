"""`UpSampling1D/2D/3D`: enlarge the spatial dims by repeating (or interpolating) rows."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

__all__ = ["UpSampling1D", "UpSampling2D", "UpSampling3D"]

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5")


class _UpSampling(Layer):
    """Repeats each row of `rank` spatial dims `size[i]` times."""

    rank = 0

    def __init__(self, size: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.size = u.normalize_tuple(name, "size", size, self.rank)
        self.data_format = u.standardize_data_format(name, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs: Any) -> Any:
        x = inputs
        for axis, factor in zip(u.spatial_axes(self.rank, self.data_format), self.size):
            if factor > 1:
                x = ops.repeat(x, factor, axis=axis)
        return x

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = list(u.check_rank(type(self).__name__, input_shape, self.rank + 2))
        for axis, factor in zip(u.spatial_axes(self.rank, self.data_format), self.size):
            if shape[axis] is not None:
                shape[axis] = int(shape[axis]) * factor  # type: ignore[arg-type]
        return tuple(shape)

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config["size"] = self.size[0] if self.rank == 1 else self.size
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class UpSampling1D(_UpSampling):
    """Repeat each time step `size` times in ``(batch, steps, features)`` inputs.

    Args:
        size: the repeat factor.

    Example:
        >>> UpSampling1D(3)(np.ones((1, 2, 4))).shape  # (1, 6, 4)
    """

    rank = 1

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(size, data_format="channels_last", **kwargs)


class UpSampling2D(_UpSampling):
    """Enlarge images by `size` (rows, cols): repeated pixels or an interpolated resize.

    Args:
        size: int or ``(row_factor, col_factor)``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        interpolation: ``"nearest"`` (repeat), or ``"bilinear"``, ``"bicubic"``,
            ``"lanczos3"``, ``"lanczos5"`` (half-pixel-centred resize, as
            `lamina.ops.image.resize`).

    Example:
        >>> UpSampling2D(2, interpolation="bilinear")(np.ones((1, 2, 3, 4))).shape  # (1, 4, 6, 4)
    """

    rank = 2

    def __init__(
        self,
        size: Any = (2, 2),
        data_format: str | None = None,
        interpolation: str = "nearest",
        **kwargs: Any,
    ) -> None:
        super().__init__(size, data_format=data_format, **kwargs)
        value = interpolation.lower() if isinstance(interpolation, str) else interpolation
        if value not in _INTERPOLATIONS:
            raise ValueError(
                f"UpSampling2D: argument `interpolation` must be one of {_INTERPOLATIONS}. "
                f"Received: interpolation={interpolation!r}"
            )
        self.interpolation = str(value)

    def call(self, inputs: Any) -> Any:
        if self.interpolation == "nearest":
            return super().call(inputs)
        axes = u.spatial_axes(2, self.data_format)
        dims = [inputs.shape[a] for a in axes]
        if any(d is None for d in dims):
            raise ValueError(
                f"UpSampling2D: interpolation={self.interpolation!r} needs known rows and "
                f"columns. Received: input shape {tuple(inputs.shape)}"
            )
        target = (int(dims[0]) * self.size[0], int(dims[1]) * self.size[1])
        return ops.image.resize(
            inputs, target, interpolation=self.interpolation, data_format=self.data_format
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["interpolation"] = self.interpolation
        return config


class UpSampling3D(_UpSampling):
    """Enlarge volumes by repeating each voxel `size` times along each spatial dim.

    Args:
        size: int or a tuple of 3 factors.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> UpSampling3D(2)(np.ones((1, 2, 2, 2, 3))).shape  # (1, 4, 4, 4, 3)
    """

    rank = 3

    def __init__(
        self, size: Any = (2, 2, 2), data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(size, data_format=data_format, **kwargs)
