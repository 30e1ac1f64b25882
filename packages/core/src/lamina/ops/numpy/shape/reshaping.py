"""Reshaping, axis permutation, flipping, tiling and padding."""

from __future__ import annotations

import math
import operator
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.dtypes import dtype_of
from lamina.ops.numpy.shape._util import as_tensor, axes_tuple, int_tuple, planned, size_of
from lamina.ops.shapes import (
    broadcast_shapes,
    canonical_axis,
    known_dims,
    require_known,
    shape_arg,
    static_shape,
)
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "broadcast_to",
    "expand_dims",
    "flip",
    "fliplr",
    "flipud",
    "moveaxis",
    "ndim",
    "ravel",
    "reshape",
    "roll",
    "rot90",
    "size",
    "squeeze",
    "swapaxes",
    "transpose",
    "view",
]


def _target(op: str, newshape: Any) -> tuple[Any, ...]:
    """`newshape` as dims: ints (at most one -1), None, or scalar integer tensors."""
    try:
        target = shape_arg(op, newshape, "newshape", minimum=-1)
    except (TypeError, ValueError):
        target = None
    if target is None or sum(d == -1 for d in target if isinstance(d, int)) > 1:
        raise ValueError(
            f"`{op}`: argument `newshape` must be a tuple of ints (or scalar integer tensors) "
            f"with at most one -1 and no other negative dims. Received: newshape={newshape!r}"
        )
    return target


def _reshaped(op: str, shape: tuple[int | None, ...], target: tuple[Any, ...]) -> tuple[Any, ...]:
    """`target` with its -1 resolved where the sizes are known (other dims unchanged)."""
    known = known_dims(target)
    if None in shape or None in known:
        return target
    size = math.prod(d for d in shape if d is not None)
    rest = math.prod(d for d in known if d is not None and d != -1)
    if -1 in known:
        if rest == 0 or size % rest:
            raise ValueError(
                f"`{op}`: cannot reshape a tensor of shape {shape} (size {size}) into {target!r}."
            )
        return tuple(size // rest if d == -1 else d for d in known)
    if rest != size:
        raise ValueError(
            f"`{op}`: cannot reshape a tensor of shape {shape} (size {size}) into "
            f"{target!r} (size {rest})."
        )
    return known


def _native_shape(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(-1 if d is None else d for d in shape)


class Reshape(Op):
    def __init__(self, newshape: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.newshape = _target(self.op_name, newshape)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        target = _reshaped(self.op_name, static_shape(x), self.newshape)
        out = tuple(None if d == -1 else d for d in known_dims(target))
        return SymbolicTensor(out, dtype_of(x))

    def call(self, x: Any) -> Any:
        x, target = planned(self, x, self._native_target)
        return backend().numpy.reshape(x, target)

    def _native_target(self, shape: tuple[int | None, ...]) -> tuple[Any, ...]:
        target = _reshaped(self.op_name, shape, self.newshape)
        if sum(d is None or (isinstance(d, int) and d == -1) for d in target) > 1:
            raise ValueError(
                f"`{self.op_name}`: argument `newshape` has more than one unknown dim (None "
                f"or -1). Received: newshape={self.newshape!r}"
            )
        return _native_shape(target)


def reshape(x: Any, newshape: Any) -> Any:
    """Give `x` a new shape with the same number of elements; one dim may be -1.

    Dims may be scalar integer tensors, such as ``ops.shape(x)[0]`` where the batch size is
    only known when the step runs (a TensorFlow `tf.function`).

    Example:
        >>> lamina.ops.reshape(np.arange(6), (2, -1)).shape  # (2, 3)
    """
    return Reshape(newshape)(x)


class Ravel(Reshape):
    def __init__(self, name: str | None = None) -> None:
        super().__init__((-1,), name=name)


def ravel(x: Any) -> Any:
    """`x` flattened to 1-D.

    Example:
        >>> lamina.ops.ravel(np.ones((2, 3))).shape  # (6,)
    """
    return Ravel()(x)


class BroadcastTo(Op):
    def __init__(self, shape: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shape = shape_arg(self.op_name, shape)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        x_shape = static_shape(x)
        target = known_dims(self.shape)
        out = broadcast_shapes(self.op_name, x_shape, target)
        if len(x_shape) > len(target) or any(
            t is not None and o != t for o, t in zip(out, target, strict=True)
        ):
            raise ValueError(
                f"`{self.op_name}`: a tensor of shape {x_shape} cannot be broadcast to "
                f"{target}."
            )
        return SymbolicTensor(out, dtype_of(x))

    def call(self, x: Any) -> Any:
        self.compute_output_spec(x)
        shape = require_known(self.op_name, self.shape)
        return backend().numpy.broadcast_to(to_tensor(x), shape)


def broadcast_to(x: Any, shape: Any) -> Any:
    """Broadcast `x` to `shape` under NumPy rules.

    Example:
        >>> lamina.ops.broadcast_to(np.array([1, 2]), (3, 2)).shape  # (3, 2)
    """
    return BroadcastTo(shape)(x)


class ExpandDims(Op):
    def __init__(self, axis: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _axes(self, ndim: int) -> tuple[int, ...]:
        """The new dims' sorted positions in the output, whose rank counts them too."""
        out_rank = ndim + len(int_tuple(self.op_name, "axis", self.axis))
        return tuple(sorted(axes_tuple(self.op_name, self.axis, out_rank)))

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = list(static_shape(x))
        for a in self._axes(len(shape)):
            shape.insert(a, 1)
        return SymbolicTensor(tuple(shape), dtype_of(x))

    def call(self, x: Any) -> Any:
        x, axes = planned(self, x, lambda shape: self._axes(len(shape)))
        return backend().numpy.expand_dims(x, axes)


def expand_dims(x: Any, axis: Any) -> Any:
    """Insert size-1 dims at `axis` (an int or tuple, positions in the output).

    Example:
        >>> lamina.ops.expand_dims(np.ones((2, 3)), 0).shape  # (1, 2, 3)
    """
    return ExpandDims(axis)(x)


class Squeeze(Op):
    def __init__(self, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _axes(self, shape: tuple[int | None, ...]) -> tuple[int, ...]:
        if self.axis is None:
            return tuple(i for i, d in enumerate(shape) if d == 1)
        axes = tuple(sorted(axes_tuple(self.op_name, self.axis, len(shape))))
        for a in axes:
            if shape[a] is not None and shape[a] != 1:
                raise ValueError(
                    f"`{self.op_name}`: cannot squeeze axis {a} of size {shape[a]} (it must be "
                    f"1). Received: axis={self.axis!r} for shape {shape}"
                )
        return axes

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        axes = self._axes(shape)
        return SymbolicTensor(tuple(d for i, d in enumerate(shape) if i not in axes), dtype_of(x))

    def call(self, x: Any) -> Any:
        x, axes = planned(self, x, self._axes)
        return backend().numpy.squeeze(x, axes)


def squeeze(x: Any, axis: Any = None) -> Any:
    """Remove size-1 dims: those listed in `axis`, or all of them when None.

    Example:
        >>> lamina.ops.squeeze(np.ones((1, 3, 1))).shape  # (3,)
    """
    return Squeeze(axis)(x)


class Transpose(Op):
    def __init__(self, axes: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axes = axes

    def _perm(self, ndim: int) -> tuple[int, ...]:
        if self.axes is None:
            return tuple(reversed(range(ndim)))
        perm = axes_tuple(self.op_name, self.axes, ndim, "axes")
        if len(perm) != ndim:
            raise ValueError(
                f"`{self.op_name}`: argument `axes` must list each of the {ndim} axes once. "
                f"Received: axes={self.axes!r}"
            )
        return perm

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        return SymbolicTensor(tuple(shape[a] for a in self._perm(len(shape))), dtype_of(x))

    def call(self, x: Any) -> Any:
        x, perm = planned(self, x, lambda shape: self._perm(len(shape)))
        return backend().numpy.transpose(x, perm)


def transpose(x: Any, axes: Any = None) -> Any:
    """Permute the dims of `x` (reverse them when `axes` is None).

    Example:
        >>> lamina.ops.transpose(np.ones((2, 3))).shape  # (3, 2)
    """
    return Transpose(axes)(x)


class Moveaxis(Transpose):
    def __init__(self, source: Any, destination: Any, name: str | None = None) -> None:
        super().__init__(None, name=name)
        self.source = source
        self.destination = destination

    def _perm(self, ndim: int) -> tuple[int, ...]:
        src = axes_tuple(self.op_name, self.source, ndim, "source")
        dst = axes_tuple(self.op_name, self.destination, ndim, "destination")
        if len(src) != len(dst):
            raise ValueError(
                f"`{self.op_name}`: arguments `source` and `destination` must have the same "
                f"number of axes. Received: source={self.source!r}, "
                f"destination={self.destination!r}"
            )
        rest = [a for a in range(ndim) if a not in src]
        for d, s in sorted(zip(dst, src, strict=True)):
            rest.insert(d, s)
        return tuple(rest)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """Move axes of `x` from `source` to `destination`; the others keep their order.

    Example:
        >>> lamina.ops.moveaxis(np.ones((2, 3, 4)), 0, -1).shape  # (3, 4, 2)
    """
    return Moveaxis(source, destination)(x)


class Swapaxes(Transpose):
    def __init__(self, axis1: Any, axis2: Any, name: str | None = None) -> None:
        super().__init__(None, name=name)
        self.axis1 = axis1
        self.axis2 = axis2

    def _perm(self, ndim: int) -> tuple[int, ...]:
        a = canonical_axis(self.op_name, self.axis1, ndim, "axis1")
        b = canonical_axis(self.op_name, self.axis2, ndim, "axis2")
        perm = list(range(ndim))
        perm[a], perm[b] = perm[b], perm[a]
        return tuple(perm)


def swapaxes(x: Any, axis1: Any, axis2: Any) -> Any:
    """Interchange two axes of `x`.

    Example:
        >>> lamina.ops.swapaxes(np.ones((2, 3)), 0, 1).shape  # (3, 2)
    """
    return Swapaxes(axis1, axis2)(x)


class Flip(Op):
    def __init__(self, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _axes(self, ndim: int) -> tuple[int, ...]:
        if self.axis is None:
            return tuple(range(ndim))
        return axes_tuple(self.op_name, self.axis, ndim)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        self._axes(len(static_shape(x)))
        return SymbolicTensor(static_shape(x), dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        return backend().numpy.flip(x, self._axes(len(static_shape(x))))


def flip(x: Any, axis: Any = None) -> Any:
    """Reverse the order of elements along `axis` (all axes when None).

    Example:
        >>> lamina.ops.flip(np.array([1, 2, 3]))  # [3, 2, 1]
    """
    return Flip(axis)(x)


class Fliplr(Flip):
    def __init__(self, name: str | None = None) -> None:
        super().__init__(1, name=name)

    def _axes(self, ndim: int) -> tuple[int, ...]:
        if ndim < 2:
            raise ValueError(
                f"`{self.op_name}`: argument `x` must have rank >= 2. Received rank {ndim}"
            )
        return (1,)


class Flipud(Flip):
    def __init__(self, name: str | None = None) -> None:
        super().__init__(0, name=name)

    def _axes(self, ndim: int) -> tuple[int, ...]:
        if ndim < 1:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received rank 0")
        return (0,)


def fliplr(x: Any) -> Any:
    """Reverse the order of columns (axis 1); `x` must be at least 2-D.

    Example:
        >>> lamina.ops.fliplr(np.array([[1, 2]]))  # [[2, 1]]
    """
    return Fliplr()(x)


def flipud(x: Any) -> Any:
    """Reverse the order of rows (axis 0).

    Example:
        >>> lamina.ops.flipud(np.array([[1], [2]]))  # [[2], [1]]
    """
    return Flipud()(x)


class Rot90(Op):
    def __init__(self, k: Any = 1, axes: Any = (0, 1), name: str | None = None) -> None:
        super().__init__(name=name)
        (self.k,) = int_tuple(self.op_name, "k", k)
        self.axes = axes

    def _axes(self, ndim: int) -> tuple[int, int]:
        axes = int_tuple(self.op_name, "axes", self.axes)
        if len(axes) != 2:
            raise ValueError(
                f"`{self.op_name}`: argument `axes` must be 2 axes. Received: axes={self.axes!r}"
            )
        if ndim < 2:
            raise ValueError(
                f"`{self.op_name}`: argument `array` must have rank >= 2. Received rank {ndim}"
            )
        a, b = axes_tuple(self.op_name, axes, ndim, "axes")
        return a, b

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = list(static_shape(x))
        a, b = self._axes(len(shape))
        if self.k % 2:
            shape[a], shape[b] = shape[b], shape[a]
        return SymbolicTensor(tuple(shape), dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        ndim = len(static_shape(x))
        a, b = self._axes(ndim)
        k = self.k % 4
        np_ = backend().numpy
        perm = list(range(ndim))
        perm[a], perm[b] = perm[b], perm[a]
        if k == 0:
            return x
        if k == 2:
            return np_.flip(x, (a, b))
        if k == 1:
            return np_.transpose(np_.flip(x, (b,)), tuple(perm))
        return np_.flip(np_.transpose(x, tuple(perm)), (b,))


def rot90(array: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    """Rotate `array` by 90 degrees `k` times in the plane of `axes`.

    Example:
        >>> lamina.ops.rot90(np.array([[1, 2], [3, 4]]))  # [[2, 4], [1, 3]]
    """
    return Rot90(k, axes)(array)


class Roll(Op):
    def __init__(self, shift: Any, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shift = int_tuple(self.op_name, "shift", shift)
        self.axis = axis
        if axis is None and len(self.shift) != 1:
            raise ValueError(
                f"`{self.op_name}`: argument `shift` must be one int when `axis` is None. "
                f"Received: shift={shift!r}"
            )

    def _args(self, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        axes = int_tuple(self.op_name, "axis", self.axis)
        axes = tuple(canonical_axis(self.op_name, a, ndim) for a in axes)
        shift = self.shift
        if len(shift) == 1:
            shift = shift * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shift)
        if len(shift) != len(axes):
            raise ValueError(
                f"`{self.op_name}`: arguments `shift` and `axis` must have the same length. "
                f"Received: shift={self.shift!r}, axis={self.axis!r}"
            )
        return shift, axes

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        if self.axis is not None:
            self._args(len(static_shape(x)))
        return SymbolicTensor(static_shape(x), dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        shape = static_shape(x)
        np_ = backend().numpy
        if self.axis is None:
            flat = np_.roll(np_.reshape(x, (-1,)), self.shift, (0,))
            return np_.reshape(flat, _native_shape(shape))
        shift, axes = self._args(len(shape))
        return np_.roll(x, shift, axes)


def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    """Roll elements of `x` by `shift` along `axis` (of the flattened `x` when None).

    Example:
        >>> lamina.ops.roll(np.array([1, 2, 3]), 1)  # [3, 1, 2]
    """
    return Roll(shift, axis)(x)


class View(Op):
    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = None if dtype is None else dtypes.standardize_dtype(dtype)

    def _shape(self, shape: tuple[int | None, ...], src: str) -> tuple[int | None, ...]:
        if self.dtype is None or self.dtype == src:
            return shape
        if "string" in (src, self.dtype):
            raise TypeError(f"`{self.op_name}`: string tensors cannot be viewed as another dtype.")
        old = dtypes.to_numpy_dtype(src).itemsize
        new = dtypes.to_numpy_dtype(self.dtype).itemsize
        if old == new:
            return shape
        last = shape[-1] if shape else 0
        if not shape or (last is not None and (last * old) % new):
            raise ValueError(
                f"`{self.op_name}`: cannot view a {src} tensor of shape {shape} as "
                f"{self.dtype}: the last axis ({last} x {old} bytes) must divide into "
                f"{new}-byte items."
            )
        return shape[:-1] + (None if last is None else last * old // new,)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        src = dtype_of(x)
        return SymbolicTensor(self._shape(static_shape(x), src), self.dtype or src)

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        src = dtype_of(x)
        self._shape(static_shape(x), src)
        if self.dtype is None or self.dtype == src:
            return x
        return backend().numpy.view(x, self.dtype)


def view(x: Any, dtype: Any = None) -> Any:
    """Reinterpret the bytes of `x` as `dtype`; the last axis scales with the item size.

    Example:
        >>> lamina.ops.view(np.ones((2,), "float32"), "int32")  # [1065353216, 1065353216]
    """
    return View(dtype)(x)


def ndim(x: Any) -> int:
    """The number of dims of `x`, as a Python int.

    Example:
        >>> lamina.ops.ndim(np.ones((2, 3)))  # 2
    """
    return len(static_shape(x))


class Size(Op):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor((), "int32")

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        n = size_of(static_shape(x))
        if n is not None:
            return to_tensor(operator.index(n), "int32")
        return composite("numpy", "size")(x)


def size(x: Any) -> Any:
    """The number of elements of `x`, as an int32 scalar tensor.

    Example:
        >>> lamina.ops.size(np.ones((2, 3)))  # 6
    """
    return Size()(x)
