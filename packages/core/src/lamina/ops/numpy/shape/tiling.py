"""Tiling, repeating and padding."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.dtypes import dtype_of
from lamina.ops.numpy.shape._util import as_tensor, int_tuple, size_of
from lamina.ops.shapes import canonical_axis, known_dims, require_known, shape_arg, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["pad", "repeat", "tile"]


class Tile(Op):
    def __init__(self, repeats: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.repeats = require_known(
            self.op_name, shape_arg(self.op_name, repeats, "repeats"), "repeats"
        )

    def _reps(self, ndim: int) -> tuple[Any, ...]:
        return (1,) * (ndim - len(self.repeats)) + self.repeats

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        shape = (1,) * (len(self.repeats) - len(shape)) + shape
        reps = known_dims(self._reps(len(shape)))
        out = tuple(
            None if d is None or r is None else d * r for d, r in zip(shape, reps, strict=True)
        )
        return SymbolicTensor(out, dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        ndim = len(static_shape(x))
        if len(self.repeats) > ndim:
            x = backend().numpy.expand_dims(x, tuple(range(len(self.repeats) - ndim)))
            ndim = len(self.repeats)
        return backend().numpy.tile(x, self._reps(ndim))


def tile(x: Any, repeats: Any) -> Any:
    """Repeat `x` the number of times given by `repeats` along each axis.

    Example:
        >>> lamina.ops.tile(np.array([1, 2]), 2)  # [1, 2, 1, 2]
    """
    return Tile(repeats)(x)


class Repeat(Op):
    def __init__(self, repeats: Any, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.repeats = int_tuple(self.op_name, "repeats", repeats)
        self.scalar = not isinstance(repeats, (list, tuple))
        if any(r < 0 for r in self.repeats):
            raise ValueError(
                f"`{self.op_name}`: argument `repeats` must not be negative. "
                f"Received: repeats={repeats!r}"
            )
        self.axis = axis

    def _spec(self, shape: tuple[int | None, ...]) -> tuple[int, int | None]:
        """The axis repeated (of the flattened input when `axis` is None) and its new size."""
        if self.axis is None:
            axis, dim = 0, size_of(shape)
        else:
            axis = canonical_axis(self.op_name, self.axis, len(shape))
            dim = shape[axis]
        if self.scalar or len(self.repeats) == 1:
            return axis, None if dim is None else dim * self.repeats[0]
        if dim is not None and len(self.repeats) != dim:
            raise ValueError(
                f"`{self.op_name}`: argument `repeats` must have one entry per element along "
                f"the axis ({dim}). Received: repeats of length {len(self.repeats)}"
            )
        return axis, sum(self.repeats)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        axis, dim = self._spec(shape)
        if self.axis is None:
            return SymbolicTensor((dim,), dtype_of(x))
        return SymbolicTensor(shape[:axis] + (dim,) + shape[axis + 1 :], dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        axis, _ = self._spec(static_shape(x))
        if self.axis is None:
            x = backend().numpy.reshape(x, (-1,))
        reps: int | tuple[int, ...] = self.repeats
        if self.scalar or len(self.repeats) == 1:
            reps = self.repeats[0]
        return backend().numpy.repeat(x, reps, axis)


def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
    """Repeat each element of `x` `repeats` times (an int, or one count per element).

    Args:
        x: input tensor.
        repeats: an int, or a sequence of ints with one count per element along `axis`.
        axis: the axis to repeat along; None repeats the flattened `x`.

    Example:
        >>> lamina.ops.repeat(np.array([1, 2]), 2)  # [1, 1, 2, 2]
    """
    return Repeat(repeats, axis)(x)


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_width(op: str, pad_width: Any, ndim: int) -> tuple[tuple[int, int], ...]:
    try:
        arr = np.asarray(pad_width)
        if arr.dtype.kind not in "iu":
            raise TypeError
    except (TypeError, ValueError):
        raise TypeError(
            f"`{op}`: argument `pad_width` must be ints. Received: pad_width={pad_width!r}"
        ) from None
    try:
        pairs = np.broadcast_to(arr, (ndim, 2)) if arr.ndim < 2 or len(arr) == 1 else arr
        if pairs.shape != (ndim, 2):
            raise ValueError
    except ValueError:
        raise ValueError(
            f"`{op}`: argument `pad_width` must be an int, a pair, or one pair per axis "
            f"({ndim}). Received: pad_width={pad_width!r}"
        ) from None
    if (pairs < 0).any():
        raise ValueError(
            f"`{op}`: argument `pad_width` must not be negative. Received: pad_width={pad_width!r}"
        )
    return tuple((int(a), int(b)) for a, b in pairs)


class Pad(Op):
    def __init__(self, pad_width: Any, mode: str = "constant", name: str | None = None) -> None:
        super().__init__(name=name)
        if mode not in _PAD_MODES:
            raise ValueError(
                f"`{self.op_name}`: argument `mode` must be one of {_PAD_MODES}. "
                f"Received: mode={mode!r}"
            )
        self.pad_width = pad_width
        self.mode = mode

    def compute_output_spec(self, x: Any, constant_values: Any = None) -> SymbolicTensor:
        shape = static_shape(x)
        widths = _pad_width(self.op_name, self.pad_width, len(shape))
        if constant_values is not None:
            if self.mode != "constant":
                raise ValueError(
                    f"`{self.op_name}`: argument `constant_values` can only be given when "
                    f"mode='constant'. Received: mode={self.mode!r}"
                )
            if static_shape(constant_values) != ():
                raise ValueError(
                    f"`{self.op_name}`: argument `constant_values` must be a scalar. "
                    f"Received shape: {static_shape(constant_values)}"
                )
        out = tuple(
            None if d is None else d + a + b for d, (a, b) in zip(shape, widths, strict=True)
        )
        return SymbolicTensor(out, dtype_of(x))

    def call(self, x: Any, constant_values: Any = None) -> Any:
        x = as_tensor(self.op_name, x)
        self.compute_output_spec(x, constant_values)
        shape = static_shape(x)
        widths = _pad_width(self.op_name, self.pad_width, len(shape))
        np_ = backend().numpy
        if self.mode == "constant":
            dtype = dtypes.dtype_of(x)
            value = 0 if constant_values is None else constant_values
            if dtype == "bool" and isinstance(value, (int, float)):
                value = bool(value)  # TF will not convert a Python int to bool
            value = to_tensor(value, dtype)
            return np_.pad(x, widths, value)
        # Other modes gather: NumPy computes, from the static dims, which source element
        # each output position copies, so every backend follows NumPy's definition exactly.
        for axis, (a, b) in enumerate(widths):
            if not a and not b:
                continue
            dim = shape[axis]
            if dim is None:
                raise ValueError(
                    f"`{self.op_name}`: mode={self.mode!r} needs the size of axis {axis} to be "
                    "known."
                )
            try:
                pad_indices: Any = np.pad  # `mode` is checked against _PAD_MODES above
                index = pad_indices(np.arange(dim, dtype=np.int32), (a, b), mode=self.mode)
            except ValueError as e:
                raise ValueError(f"`{self.op_name}`: cannot pad axis {axis}: {e}") from None
            x = np_.take(x, to_tensor(index, "int32"), axis)
        return x


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = None) -> Any:
    """Pad `x` with `pad_width` elements before and after each axis.

    Args:
        x: input tensor.
        pad_width: an int, a ``(before, after)`` pair, or one pair per axis.
        mode: "constant", "edge", "reflect", "symmetric" or "wrap" (NumPy's meanings).
        constant_values: the scalar to pad with in "constant" mode (default 0).

    Example:
        >>> lamina.ops.pad(np.array([1, 2]), 1)  # [0, 1, 2, 0]
    """
    if constant_values is None:
        return Pad(pad_width, mode)(x)
    return Pad(pad_width, mode)(x, constant_values)
