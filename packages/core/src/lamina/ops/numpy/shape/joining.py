"""Joining tensors together and splitting them apart."""

from __future__ import annotations

import itertools
import operator
from typing import Any

from lamina.ops.base import Op
from lamina.ops.dispatch import backend, native, to_tensor
from lamina.ops.dtypes import dtype_of
from lamina.ops.eager_memo import memo
from lamina.ops.numpy.shape._util import as_tensor, common_dtype, int_tuple, same_dim, size_of
from lamina.ops.shapes import Shape, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "append",
    "array_split",
    "concatenate",
    "dsplit",
    "dstack",
    "hsplit",
    "hstack",
    "split",
    "stack",
    "vsplit",
    "vstack",
]


def _as_list(op: str, xs: Any) -> list[Any]:
    if not isinstance(xs, (list, tuple)) or not xs:
        raise ValueError(
            f"`{op}`: argument `xs` must be a non-empty list of tensors. Received: xs={xs!r}"
        )
    return list(xs)


def _joined_shape(op: str, shapes: list[Shape], axis: int) -> Shape:
    """The shape of `shapes` concatenated along `axis` (all of the same rank)."""
    rank = len(shapes[0])
    out = list(shapes[0])
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise ValueError(
                f"`{op}`: all inputs must have the same rank. Received: xs[0].shape="
                f"{shapes[0]} and xs[{i}].shape={s}"
            )
        for d in range(rank):
            if d == axis:
                continue
            if not same_dim(out[d], s[d]):
                raise ValueError(
                    f"`{op}`: inputs must match in every dim but axis {axis}. Received: "
                    f"xs[0].shape={shapes[0]} and xs[{i}].shape={s}"
                )
            out[d] = out[d] if out[d] is not None else s[d]
    dims = [s[axis] for s in shapes]
    out[axis] = None if None in dims else sum(d for d in dims if d is not None)
    return tuple(out)


class Concatenate(Op):
    def __init__(self, axis: Any = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _spec(self, xs: list[Any]) -> tuple[Shape, str, int | None]:
        shapes = [static_shape(x) for x in xs]
        dtype = common_dtype(self.op_name, *xs)
        if self.axis is None:
            sizes = [size_of(s) for s in shapes]
            return (None if None in sizes else sum(s or 0 for s in sizes),), dtype, None
        if not shapes[0]:
            raise ValueError(f"`{self.op_name}`: zero-dimensional inputs cannot be concatenated.")
        axis = canonical_axis(self.op_name, self.axis, len(shapes[0]))
        return _joined_shape(self.op_name, shapes, axis), dtype, axis

    def compute_output_spec(self, xs: Any) -> SymbolicTensor:
        shape, dtype, _ = self._spec(_as_list(self.op_name, xs))
        return SymbolicTensor(shape, dtype)

    def _checked(self, xs: list[Any]) -> tuple[str, int | None, bool]:
        """`_spec`'s dtype and axis, and whether every input already is a tensor of it."""
        _, dtype, axis = self._spec(xs)
        return dtype, axis, native(dtype, *xs)

    def call(self, xs: Any) -> Any:
        xs = _as_list(self.op_name, xs)
        dtype, axis, ready = memo(self, tuple(xs), lambda: self._checked(xs))
        tensors = xs if ready else [to_tensor(x, dtype) for x in xs]
        if axis is None:
            tensors = [backend().numpy.reshape(t, (-1,)) for t in tensors]
            axis = 0
        return backend().numpy.concatenate(tensors, axis)


def concatenate(xs: Any, axis: Any = 0) -> Any:
    """Join a list of tensors along an existing axis, promoting to their common dtype.

    Args:
        xs: a list of tensors of the same rank, matching in every dim but `axis`.
        axis: the axis to join along; None flattens the inputs first.

    Example:
        >>> lamina.ops.concatenate([np.ones((1, 2)), np.zeros((2, 2))]).shape  # (3, 2)
    """
    return Concatenate(axis)(xs)


class Stack(Op):
    def __init__(self, axis: Any = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _spec(self, xs: list[Any]) -> tuple[Shape, str, int]:
        shapes = [static_shape(x) for x in xs]
        dtype = common_dtype(self.op_name, *xs)
        axis = canonical_axis(self.op_name, self.axis, len(shapes[0]) + 1)
        for i, s in enumerate(shapes[1:], 1):
            if len(s) != len(shapes[0]) or not all(
                same_dim(a, b) for a, b in zip(s, shapes[0], strict=True)
            ):
                raise ValueError(
                    f"`{self.op_name}`: all inputs must have the same shape. Received: "
                    f"xs[0].shape={shapes[0]} and xs[{i}].shape={s}"
                )
        inner = tuple(
            next((s[d] for s in shapes if s[d] is not None), None) for d in range(len(shapes[0]))
        )
        return inner[:axis] + (len(xs),) + inner[axis:], dtype, axis

    def compute_output_spec(self, xs: Any) -> SymbolicTensor:
        shape, dtype, _ = self._spec(_as_list(self.op_name, xs))
        return SymbolicTensor(shape, dtype)

    def call(self, xs: Any) -> Any:
        xs = _as_list(self.op_name, xs)
        _, dtype, axis = self._spec(xs)
        return backend().numpy.stack([to_tensor(x, dtype) for x in xs], axis)


def stack(x: Any, axis: Any = 0) -> Any:
    """Join a list of same-shaped tensors along a new axis.

    Example:
        >>> lamina.ops.stack([np.ones(3), np.zeros(3)]).shape  # (2, 3)
    """
    return Stack(axis)(x)


def _at_least(shape: Shape, rank: int) -> Shape:
    """NumPy's atleast_1d/2d/3d shapes: (n,) -> (1, n) and (1, n, 1); (m, n) -> (m, n, 1)."""
    if len(shape) >= rank:
        return shape
    if rank == 1:
        return (1,)
    if rank == 2:
        return (1,) * (2 - len(shape)) + shape
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


class _StackAlong(Concatenate):
    """hstack / vstack / dstack: concatenate after raising inputs to a minimum rank."""

    rank = 1

    def _axis(self, shape: Shape) -> int:
        return 0

    def _lift(self, xs: list[Any]) -> list[Shape]:
        return [_at_least(static_shape(x), self.rank) for x in xs]

    def _spec(self, xs: list[Any]) -> tuple[Shape, str, int | None]:
        shapes = self._lift(xs)
        axis = self._axis(shapes[0])
        return _joined_shape(self.op_name, shapes, axis), common_dtype(self.op_name, *xs), axis

    def call(self, xs: Any) -> Any:
        xs = _as_list(self.op_name, xs)
        _, dtype, axis = self._spec(xs)
        np_ = backend().numpy
        tensors = []
        for x, shape in zip(xs, self._lift(xs), strict=True):
            t = to_tensor(x, dtype)
            if len(static_shape(t)) != len(shape):
                t = np_.reshape(t, tuple(-1 if d is None else d for d in shape))
            tensors.append(t)
        return np_.concatenate(tensors, 0 if axis is None else axis)


class Hstack(_StackAlong):
    def _axis(self, shape: Shape) -> int:
        return 0 if len(shape) == 1 else 1


class Vstack(_StackAlong):
    rank = 2


class Dstack(_StackAlong):
    rank = 3

    def _axis(self, shape: Shape) -> int:
        return 2


def hstack(xs: Any) -> Any:
    """Stack tensors column-wise (axis 1, or axis 0 for 1-D inputs).

    Example:
        >>> lamina.ops.hstack([np.ones(2), np.zeros(3)]).shape  # (5,)
    """
    return Hstack()(xs)


def vstack(xs: Any) -> Any:
    """Stack tensors row-wise (axis 0, 1-D inputs become rows).

    Example:
        >>> lamina.ops.vstack([np.ones(3), np.zeros(3)]).shape  # (2, 3)
    """
    return Vstack()(xs)


def dstack(xs: Any) -> Any:
    """Stack tensors depth-wise (axis 2, inputs raised to at least 3-D).

    Example:
        >>> lamina.ops.dstack([np.ones((2, 2)), np.zeros((2, 2))]).shape  # (2, 2, 2)
    """
    return Dstack()(xs)


class Append(Concatenate):
    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:  # type: ignore[override]
        return super().compute_output_spec([x1, x2])

    def call(self, x1: Any, x2: Any) -> Any:  # type: ignore[override]
        return super().call([x1, x2])


def append(x1: Any, x2: Any, axis: Any = None) -> Any:
    """Append `x2` to the end of `x1` along `axis` (both flattened when None).

    Example:
        >>> lamina.ops.append(np.array([1, 2]), np.array([[3]]))  # [1, 2, 3]
    """
    return Append(axis)(x1, x2)


def _split_points(
    op: str, indices_or_sections: Any, dim: int | None, even: bool
) -> tuple[int, ...] | int:
    """Split offsets along a dim of size `dim`, or the number of sections if `dim` is None."""
    if isinstance(indices_or_sections, (list, tuple)):
        points = int_tuple(op, "indices_or_sections", indices_or_sections)
        if dim is None:
            return points
        clipped = []
        for p in points:
            p = p + dim if p < 0 else p
            clipped.append(min(max(p, 0), dim))
        return tuple(clipped)
    try:
        if isinstance(indices_or_sections, bool):
            raise TypeError
        n = operator.index(indices_or_sections)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `indices_or_sections` must be an int or a list of ints. "
            f"Received: indices_or_sections={indices_or_sections!r}"
        ) from None
    if n <= 0:
        raise ValueError(
            f"`{op}`: argument `indices_or_sections` must be positive. Received: "
            f"indices_or_sections={n}"
        )
    if dim is None:
        return n
    if even and dim % n:
        raise ValueError(
            f"`{op}`: an axis of size {dim} cannot be split into {n} equal sections. "
            "Use `array_split` for unequal sections."
        )
    base, extra = divmod(dim, n)
    cuts: list[int] = []
    pos = 0
    for i in range(n - 1):
        pos += base + (1 if i < extra else 0)
        cuts.append(pos)
    return tuple(cuts)


class Split(Op):
    even = True

    def __init__(self, indices_or_sections: Any, axis: Any = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.indices_or_sections = indices_or_sections
        self.axis = axis

    def _axis(self, shape: Shape) -> int:
        if not shape:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received rank 0")
        return canonical_axis(self.op_name, self.axis, len(shape))

    def _pieces(self, shape: Shape) -> tuple[int, list[int | None]]:
        axis = self._axis(shape)
        dim = shape[axis]
        points = _split_points(self.op_name, self.indices_or_sections, dim, self.even)
        if isinstance(points, int):
            return axis, [None] * points
        if dim is None:
            return axis, [None] * (len(points) + 1)
        bounds = (0,) + points + (dim,)
        return axis, [max(b - a, 0) for a, b in itertools.pairwise(bounds)]

    def compute_output_spec(self, x: Any) -> list[SymbolicTensor]:
        shape = static_shape(x)
        axis, sizes = self._pieces(shape)
        return [SymbolicTensor(shape[:axis] + (n,) + shape[axis + 1 :], dtype_of(x)) for n in sizes]

    def call(self, x: Any) -> list[Any]:
        x = as_tensor(self.op_name, x)
        shape = static_shape(x)
        axis = self._axis(shape)
        points = _split_points(self.op_name, self.indices_or_sections, shape[axis], self.even)
        if isinstance(points, int):
            raise ValueError(
                f"`{self.op_name}`: splitting into sections needs the size of axis {axis}."
            )
        if list(points) == sorted(points):
            return list(backend().numpy.split(x, points, axis))
        # Decreasing offsets give NumPy's x[a:b] pieces (some empty): slice them one by one.
        ends: tuple[int | None, ...] = (*points, shape[axis])
        lead = (slice(None),) * axis
        return [
            backend().numpy.get_item(x, lead + (slice(a, None if b is None else max(a, b), 1),))
            for a, b in zip((0, *points), ends, strict=True)
        ]


def split(x: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
    """Split `x` into equal sections, or at the given offsets, along `axis`.

    Args:
        x: input tensor.
        indices_or_sections: a number of equal sections, or a list of split offsets.
        axis: the axis to split along.

    Returns:
        A list of tensors.

    Example:
        >>> [t.shape for t in lamina.ops.split(np.arange(6), 3)]  # [(2,), (2,), (2,)]
    """
    return Split(indices_or_sections, axis)(x)


class ArraySplit(Split):
    even = False


def array_split(x: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
    """Like `split`, but sections may be unequal (the first ones get one extra element).

    Example:
        >>> [t.shape for t in lamina.ops.array_split(np.arange(5), 2)]  # [(3,), (2,)]
    """
    return ArraySplit(indices_or_sections, axis)(x)


class Hsplit(Split):
    def _axis(self, shape: Shape) -> int:
        if not shape:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received rank 0")
        return 0 if len(shape) == 1 else 1


class Vsplit(Split):
    min_rank = 2

    def _axis(self, shape: Shape) -> int:
        if len(shape) < self.min_rank:
            raise ValueError(
                f"`{self.op_name}`: argument `x` must have rank >= {self.min_rank}. Received "
                f"rank {len(shape)}"
            )
        return 0 if self.min_rank == 2 else 2


class Dsplit(Vsplit):
    min_rank = 3


def hsplit(x: Any, indices_or_sections: Any) -> Any:
    """Split `x` column-wise (axis 1, or axis 0 for 1-D input).

    Example:
        >>> len(lamina.ops.hsplit(np.ones((2, 4)), 2))  # 2
    """
    return Hsplit(indices_or_sections)(x)


def vsplit(x: Any, indices_or_sections: Any) -> Any:
    """Split `x` row-wise (axis 0); `x` must be at least 2-D.

    Example:
        >>> len(lamina.ops.vsplit(np.ones((4, 2)), 2))  # 2
    """
    return Vsplit(indices_or_sections)(x)


def dsplit(x: Any, indices_or_sections: Any) -> Any:
    """Split `x` depth-wise (axis 2); `x` must be at least 3-D.

    Example:
        >>> len(lamina.ops.dsplit(np.ones((2, 2, 4)), 2))  # 2
    """
    return Dsplit(indices_or_sections)(x)
