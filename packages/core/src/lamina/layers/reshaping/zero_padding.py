"""`ZeroPadding1D/2D/3D`: add rows of zeros around the spatial dims (e.g. before a conv)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer

__all__ = ["ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"]


class _ZeroPadding(Layer):
    """Pads `rank` spatial dims with ``(before, after)`` zeros each."""

    rank = 0

    def __init__(self, padding: Any, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.pairs = u.normalize_pairs(name, "padding", padding, self.rank)
        self.data_format = u.standardize_data_format(name, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def padding(self) -> Any:
        return self.pairs[0] if self.rank == 1 else self.pairs

    def call(self, inputs: Any) -> Any:
        pads = [(0, 0)] * (self.rank + 2)
        for axis, pair in zip(u.spatial_axes(self.rank, self.data_format), self.pairs):
            pads[axis] = pair
        return ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = list(u.check_rank(type(self).__name__, input_shape, self.rank + 2))
        for axis, (a, b) in zip(u.spatial_axes(self.rank, self.data_format), self.pairs):
            if shape[axis] is not None:
                shape[axis] = int(shape[axis]) + a + b  # type: ignore[arg-type]
        return tuple(shape)

    def get_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


class ZeroPadding1D(_ZeroPadding):
    """Zero-pad the time dim of ``(batch, steps, features)`` inputs.

    Args:
        padding: int (both ends) or ``(left, right)``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> ZeroPadding1D(2)(np.ones((1, 3, 4))).shape  # (1, 7, 4)
    """

    rank = 1

    def __init__(self, padding: Any = 1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Zero-pad rows and columns of images.

    Args:
        padding: int (all sides), ``(rows, cols)`` (symmetric per dim) or
            ``((top, bottom), (left, right))``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> ZeroPadding2D((1, 2))(np.ones((1, 3, 3, 4))).shape  # (1, 5, 7, 4)
    """

    rank = 2

    def __init__(
        self, padding: Any = (1, 1), data_format: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)


class ZeroPadding3D(_ZeroPadding):
    """Zero-pad the three spatial dims of volumes.

    Args:
        padding: int, a tuple of 3 ints (symmetric per dim) or 3 ``(before, after)`` pairs.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.

    Example:
        >>> ZeroPadding3D(1)(np.ones((1, 2, 2, 2, 3))).shape  # (1, 4, 4, 4, 3)
    """

    rank = 3

    def __init__(
        self,
        padding: Any = ((1, 1), (1, 1), (1, 1)),
        data_format: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(padding, data_format=data_format, **kwargs)
