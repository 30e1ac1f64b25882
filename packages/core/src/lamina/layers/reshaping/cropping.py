"""`Cropping1D/2D/3D`: drop rows from the edges of the spatial dims."""

from __future__ import annotations

from typing import Any

from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

__all__ = ["Cropping1D", "Cropping2D", "Cropping3D"]


class _Cropping(Layer):
    """Crops ``(before, after)`` rows from each of `rank` spatial dims."""

    rank = 0

    def __init__(self, cropping: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.pairs = u.normalize_pairs(name, "cropping", cropping, self.rank)
        self.data_format = u.standardize_data_format(name, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def cropping(self) -> Any:
        return self.pairs[0] if self.rank == 1 else self.pairs

    def _check_fits(self, shape: tuple[Any, ...]) -> None:
        for axis, (a, b) in zip(u.spatial_axes(self.rank, self.data_format), self.pairs):
            if shape[axis] is not None and a + b >= shape[axis]:
                raise ValueError(
                    f"{type(self).__name__}: argument `cropping` must leave at least one row "
                    f"in every cropped dim. Received: cropping={self.cropping}, "
                    f"input_shape={shape}"
                )

    def call(self, inputs: Any) -> Any:
        shape = tuple(inputs.shape)
        self._check_fits(shape)
        key: list[slice] = [slice(None)] * (self.rank + 2)
        for axis, (a, b) in zip(u.spatial_axes(self.rank, self.data_format), self.pairs):
            key[axis] = slice(a, shape[axis] - b if shape[axis] is not None else -b or None)
        return inputs[tuple(key)]

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = u.check_rank(type(self).__name__, input_shape, self.rank + 2)
        self._check_fits(shape)
        out = list(shape)
        for axis, (a, b) in zip(u.spatial_axes(self.rank, self.data_format), self.pairs):
            if out[axis] is not None:
                out[axis] = int(out[axis]) - a - b  # type: ignore[arg-type]
        return tuple(out)

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config["cropping"] = self.cropping
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """Crop the time dim of ``(batch, steps, features)`` inputs.

    Args:
        cropping: int (both ends) or ``(start, end)``.

    Example:
        >>> Cropping1D((1, 2))(np.ones((1, 6, 4))).shape  # (1, 3, 4)
    """

    rank = 1

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping, data_format="channels_last", **kwargs)


class Cropping2D(_Cropping):
    """Crop rows and columns of images.

    Args:
        cropping: int (all sides), ``(rows, cols)`` (symmetric per dim) or
            ``((top, bottom), (left, right))``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> Cropping2D(((1, 0), (2, 2)))(np.ones((1, 5, 6, 3))).shape  # (1, 4, 2, 3)
    """

    rank = 2

    def __init__(
        self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(cropping, data_format=data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crop the three spatial dims of volumes.

    Args:
        cropping: int, a tuple of 3 ints (symmetric per dim) or 3 ``(before, after)`` pairs.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> Cropping3D(1)(np.ones((1, 4, 4, 4, 3))).shape  # (1, 2, 2, 2, 3)
    """

    rank = 3

    def __init__(
        self,
        cropping: Any = ((1, 1), (1, 1), (1, 1)),
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(cropping, data_format=data_format, **kwargs)
