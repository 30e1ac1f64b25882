"""Indexing, gathering, selection and diagonals."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, native, to_tensor
from lamina.ops.dtypes import dtype_of
from lamina.ops.eager_memo import memo
from lamina.ops.numpy.shape._util import (
    as_tensor,
    common_dtype,
    int_index_dtype,
    int_tuple,
    size_of,
)
from lamina.ops.shapes import Shape, broadcast_shapes, canonical_axis, check_rank, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "diag",
    "diagflat",
    "diagonal",
    "get_item",
    "nonzero",
    "select",
    "take",
    "take_along_axis",
    "tril",
    "triu",
    "unravel_index",
    "where",
]


# ----------------------------------------------------------------------------- get_item


class _TensorSlot:
    """Stands in a stored key for the tensor passed as the `i`-th extra call argument."""

    def __init__(self, i: int) -> None:
        self.i = i

    def __repr__(self) -> str:
        return f"<tensor {self.i}>"


def _split_key(key: Any) -> tuple[tuple[Any, ...], list[Any]]:
    """The static part of `key` (tensors replaced by slots) and the tensors, in order."""
    items = key if isinstance(key, tuple) else (key,)
    template: list[Any] = []
    tensors: list[Any] = []
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, slice):
            template.append(item)
        elif isinstance(item, bool):
            raise TypeError(
                f"`get_item`: a Python bool is not a supported index. Received: key={key!r}"
            )
        elif isinstance(item, (int, np.integer)):
            template.append(operator.index(item))
        else:
            if isinstance(item, list):
                item = np.asarray(item)
                if item.dtype.kind == "f" and item.size == 0:
                    item = item.astype(np.int32)
            template.append(_TensorSlot(len(tensors)))
            tensors.append(item)
    return tuple(template), tensors


def _slice_arg(value: Any, key: Any) -> int | None:
    if value is None:
        return None
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"`get_item`: slice bounds and steps must be ints or None. Received: key={key!r}"
        ) from None


@dataclass
class _Plan:
    """How to index: a basic key for the backend, then flips and one optional gather."""

    basic: list[Any] = field(default_factory=list)
    shape: list[int | None] = field(default_factory=list)
    flips: list[int] = field(default_factory=list)
    gather: tuple[int, str, int] | None = None  # (output axis, "int" | "bool", index rank)
    to_front: bool = False


def _plan(template: tuple[Any, ...], shape: Shape, index_specs: list[tuple[Shape, str]]) -> _Plan:
    def rank_of(item: Any) -> int:
        if isinstance(item, _TensorSlot):
            ishape, idtype = index_specs[item.i]
            return len(ishape) if idtype == "bool" else 1
        return 1 if isinstance(item, (int, slice)) else 0

    if sum(item is Ellipsis for item in template) > 1:
        raise IndexError(f"`get_item`: an index can have only one Ellipsis. Received: {template}")
    consumed = sum(rank_of(item) for item in template)
    if consumed > len(shape):
        raise IndexError(
            f"`get_item`: too many indices for a tensor of rank {len(shape)}. Received: {template}"
        )
    fill = (slice(None),) * (len(shape) - consumed)
    if Ellipsis in template:
        i = template.index(Ellipsis)
        items = template[:i] + fill + template[i + 1 :]
    else:
        items = template + fill

    slots = [i for i, item in enumerate(items) if isinstance(item, _TensorSlot)]
    if len(slots) > 1:
        raise ValueError(
            "`get_item`: at most one tensor may appear in an index; combine them first. "
            f"Received: {template}"
        )
    plan = _Plan()
    advanced_keys: list[int] = []
    dim = 0
    for pos, item in enumerate(items):
        if item is None:
            plan.basic.append(None)
            plan.shape.append(1)
        elif isinstance(item, int):
            size = shape[dim]
            if size is not None:
                if not -size <= item < size:
                    raise IndexError(
                        f"`get_item`: index {item} is out of bounds for axis {dim} with size "
                        f"{size}."
                    )
                item %= size
            plan.basic.append(item)
            advanced_keys.append(pos)
            dim += 1
        elif isinstance(item, slice):
            start = _slice_arg(item.start, template)
            stop = _slice_arg(item.stop, template)
            step = _slice_arg(item.step, template)
            if step == 0:
                raise ValueError("`get_item`: slice step cannot be zero.")
            size = shape[dim]
            if size is None:
                plan.basic.append(slice(start, stop, step))
                full = start in (None, 0) and stop is None and step in (None, 1)
                plan.shape.append(None if not full else size)
            else:
                begin, end, stride = slice(start, stop, step).indices(size)
                n = len(range(begin, end, stride))
                if stride > 0:
                    plan.basic.append(slice(begin, max(begin, end), stride))
                elif n == 0:
                    plan.basic.append(slice(0, 0, 1))
                else:
                    # Backends without negative strides (torch) get a forward slice + flip.
                    last = begin + (n - 1) * stride
                    plan.basic.append(slice(last, begin + 1, -stride))
                    plan.flips.append(len(plan.shape))
                plan.shape.append(n)
            dim += 1
        else:
            ishape, idtype = index_specs[item.i]
            k = len(ishape) if idtype == "bool" else 1
            if idtype == "bool":
                for j in range(k):
                    size, msize = shape[dim + j], ishape[j]
                    if size is not None and msize is not None and size != msize:
                        raise IndexError(
                            f"`get_item`: a boolean index of shape {ishape} does not match "
                            f"the indexed dims {shape[dim : dim + k]}."
                        )
            plan.gather = (len(plan.shape), idtype, k)
            plan.basic.extend([slice(None)] * k)
            plan.shape.extend(shape[dim : dim + k])
            advanced_keys.append(pos)
            dim += k
    if plan.gather is not None and advanced_keys:
        span = advanced_keys[-1] - advanced_keys[0] + 1
        plan.to_front = span != len(advanced_keys)
    return plan


def _index_spec(x: Any) -> tuple[Shape, str]:
    dtype = dtype_of(x)
    if dtype != "bool" and dtype not in dtypes.INTS:
        raise TypeError(
            f"`get_item`: tensor indices must be integer or bool. Received dtype: {dtype}"
        )
    return static_shape(x), dtype


def _front(shape: list[int | None], p: int, r: int) -> tuple[int, ...]:
    """The permutation moving dims ``[p, p + r)`` of a rank-``len(shape)`` tensor first."""
    rest = [i for i in range(len(shape)) if not p <= i < p + r]
    return tuple(range(p, p + r)) + tuple(rest)


class GetItem(Op):
    def __init__(self, key: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.key = key

    def compute_output_spec(self, x: Any, *indices: Any) -> SymbolicTensor:
        plan = _plan(self.key, static_shape(x), [_index_spec(i) for i in indices])
        shape = list(plan.shape)
        if plan.gather is not None:
            p, kind, k = plan.gather
            ishape = list(static_shape(indices[0])) if kind != "bool" else [None]
            if kind == "bool":
                mask = static_shape(indices[0])
                ishape = [None] if mask else [1 if size_of(mask) is not None else None]
            shape = shape[:p] + ishape + shape[p + k :]
            if plan.to_front:
                shape = [shape[i] for i in _front(shape, p, len(ishape))]
        return SymbolicTensor(tuple(shape), dtype_of(x))

    def call(self, x: Any, *indices: Any) -> Any:
        x = as_tensor(self.op_name, x)
        plan = _plan(self.key, static_shape(x), [_index_spec(i) for i in indices])
        tensors = [
            to_tensor(
                i, "bool" if dtype_of(i) == "bool" else int_index_dtype(self.op_name, "key", i)
            )
            for i in indices
        ]
        np_ = backend().numpy
        out = np_.get_item(x, tuple(plan.basic))
        if plan.flips:
            out = np_.flip(out, tuple(plan.flips))
        if plan.gather is None:
            return out
        p, kind, k = plan.gather
        index = tensors[0]
        if kind == "bool":
            shape = static_shape(out)
            merged = shape[:p] + (None,) + shape[p + k :]
            out = np_.reshape(out, tuple(-1 if d is None else d for d in merged))
            (index,) = np_.nonzero(np_.reshape(index, (-1,)))
            r = 1
        else:
            r = len(static_shape(index))
        out = np_.take(out, index, p)
        if plan.to_front and r:
            out = np_.transpose(out, _front(list(static_shape(out)), p, r))
        return out


def get_item(x: Any, key: Any) -> Any:
    """`x[key]` with NumPy semantics: ints, slices, None, Ellipsis, and one int or bool tensor.

    Example:
        >>> lamina.ops.get_item(np.arange(6).reshape(2, 3), (slice(None), -1))  # [2, 5]
    """
    template, tensors = _split_key(key)
    return GetItem(template)(x, *tensors)


# ----------------------------------------------------------------------------- gathers


class Take(Op):
    def __init__(self, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _spec(self, x_shape: Shape, indices: Any) -> tuple[Shape, int]:
        int_index_dtype(self.op_name, "indices", indices)
        if self.axis is None:
            x_shape, axis = (size_of(x_shape),), 0
        else:
            axis = canonical_axis(self.op_name, self.axis, len(x_shape))
        out = x_shape[:axis] + static_shape(indices) + x_shape[axis + 1 :]
        return out, axis

    def compute_output_spec(self, x: Any, indices: Any) -> SymbolicTensor:
        return SymbolicTensor(self._spec(static_shape(x), indices)[0], dtype_of(x))

    def call(self, x: Any, indices: Any) -> Any:
        axis, index_dtype, ready = memo(self, (x, indices), lambda: self._checked(x, indices))
        if not ready:
            x = as_tensor(self.op_name, x)
            indices = to_tensor(indices, index_dtype)
        if self.axis is None:
            x = backend().numpy.reshape(x, (-1,))
        return backend().numpy.take(x, indices, axis)

    def _checked(self, x: Any, indices: Any) -> tuple[int, str, bool]:
        """The axis and the indices' dtype, checked; and whether `x` and `indices` already
        are tensors of their dtypes (an embedding lookup's usual case)."""
        tensor = as_tensor(self.op_name, x)
        _, axis = self._spec(static_shape(tensor), indices)
        index_dtype = int_index_dtype(self.op_name, "indices", indices)
        return axis, index_dtype, tensor is x and native(index_dtype, indices)


def take(x: Any, indices: Any, axis: Any = None) -> Any:
    """Elements of `x` at integer `indices` along `axis` (of the flattened `x` when None).

    Negative indices count from the end.

    Example:
        >>> lamina.ops.take(np.array([4, 5, 6]), np.array([2, 0]))  # [6, 4]
    """
    return Take(axis)(x, indices)


class TakeAlongAxis(Op):
    def __init__(self, axis: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def _spec(self, x: Any, indices: Any) -> tuple[Shape, Shape, int]:
        """Shapes `x` and `indices` are broadcast to, and the axis."""
        int_index_dtype(self.op_name, "indices", indices)
        x_shape, i_shape = static_shape(x), static_shape(indices)
        if self.axis is None:
            x_shape = (size_of(x_shape),)
            if len(i_shape) != 1:
                raise ValueError(
                    f"`{self.op_name}`: with axis=None, `indices` must be 1-D. Received: "
                    f"indices.shape={i_shape}"
                )
            return x_shape, i_shape, 0
        if len(x_shape) != len(i_shape):
            raise ValueError(
                f"`{self.op_name}`: `x` and `indices` must have the same rank. Received: "
                f"x.shape={x_shape}, indices.shape={i_shape}"
            )
        axis = canonical_axis(self.op_name, self.axis, len(x_shape))
        rest = broadcast_shapes(
            self.op_name,
            x_shape[:axis] + x_shape[axis + 1 :],
            i_shape[:axis] + i_shape[axis + 1 :],
        )
        x_out = rest[:axis] + (x_shape[axis],) + rest[axis:]
        i_out = rest[:axis] + (i_shape[axis],) + rest[axis:]
        return x_out, i_out, axis

    def compute_output_spec(self, x: Any, indices: Any) -> SymbolicTensor:
        return SymbolicTensor(self._spec(x, indices)[1], dtype_of(x))

    def call(self, x: Any, indices: Any) -> Any:
        x = as_tensor(self.op_name, x)
        indices = to_tensor(indices, int_index_dtype(self.op_name, "indices", indices))
        x_shape, i_shape, axis = self._spec(x, indices)
        np_ = backend().numpy
        if self.axis is None:
            x = np_.reshape(x, (-1,))
        if static_shape(x) != x_shape and None not in x_shape:
            x = np_.broadcast_to(x, tuple(d for d in x_shape if d is not None))
        if static_shape(indices) != i_shape and None not in i_shape:
            indices = np_.broadcast_to(indices, tuple(d for d in i_shape if d is not None))
        return np_.take_along_axis(x, indices, axis)


def take_along_axis(x: Any, indices: Any, axis: Any = None) -> Any:
    """Pick values from `x` at `indices` along `axis` (as from `argsort`/`argmax`).

    Example:
        >>> lamina.ops.take_along_axis(np.array([[4, 5]]), np.array([[1, 0]]), 1)  # [[5, 4]]
    """
    return TakeAlongAxis(axis)(x, indices)


# ----------------------------------------------------------------------------- selection


class Where(Op):
    def _spec(self, condition: Any, x1: Any, x2: Any) -> tuple[Shape, str]:
        shape = broadcast_shapes(
            self.op_name, static_shape(condition), static_shape(x1), static_shape(x2)
        )
        return shape, common_dtype(self.op_name, x1, x2)

    def compute_output_spec(self, condition: Any, x1: Any, x2: Any) -> SymbolicTensor:
        return SymbolicTensor(*self._spec(condition, x1, x2))

    def call(self, condition: Any, x1: Any, x2: Any) -> Any:
        inputs = (condition, x1, x2)
        dtype, ready = memo(self, inputs, lambda: self._checked(*inputs))
        if not ready:
            condition = to_tensor(condition, "bool")
            x1, x2 = to_tensor(x1, dtype), to_tensor(x2, dtype)
        return backend().numpy.where(condition, x1, x2)

    def _checked(self, condition: Any, x1: Any, x2: Any) -> tuple[str, bool]:
        """The shapes checked; the dtype of the result, and whether the inputs already are
        tensors of bool and of that dtype."""
        _, dtype = self._spec(condition, x1, x2)
        return dtype, native("bool", condition) and native(dtype, x1, x2)


def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    """Elements of `x1` where `condition` is true, else of `x2` (all broadcast together).

    With only `condition`, returns `nonzero(condition)`.

    Example:
        >>> lamina.ops.where(np.array([True, False]), 1, 0)  # [1, 0]
    """
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError(
            "`where`: arguments `x1` and `x2` must both be given, or neither. "
            f"Received: x1={x1!r}, x2={x2!r}"
        )
    return Where()(condition, x1, x2)


class Select(Op):
    def _spec(self, condlist: Any, choicelist: Any, default: Any) -> tuple[Shape, str]:
        for arg, value in (("condlist", condlist), ("choicelist", choicelist)):
            if not isinstance(value, (list, tuple)) or not value:
                raise ValueError(
                    f"`{self.op_name}`: argument `{arg}` must be a non-empty list of tensors. "
                    f"Received: {arg}={value!r}"
                )
        if len(condlist) != len(choicelist):
            raise ValueError(
                f"`{self.op_name}`: `condlist` and `choicelist` must have the same length. "
                f"Received lengths {len(condlist)} and {len(choicelist)}"
            )
        shapes = [static_shape(v) for v in (*condlist, *choicelist, default)]
        dtype = common_dtype(self.op_name, *choicelist, default)
        return broadcast_shapes(self.op_name, *shapes), dtype

    def compute_output_spec(self, condlist: Any, choicelist: Any, default: Any) -> SymbolicTensor:
        return SymbolicTensor(*self._spec(condlist, choicelist, default))

    def call(self, condlist: Any, choicelist: Any, default: Any) -> Any:
        shape, dtype = self._spec(condlist, choicelist, default)
        np_ = backend().numpy
        out = to_tensor(default, dtype)
        # The first true condition wins, so apply them from last to first.
        for cond, choice in reversed(list(zip(condlist, choicelist, strict=True))):
            out = np_.where(to_tensor(cond, "bool"), to_tensor(choice, dtype), out)
        if static_shape(out) != shape and None not in shape:
            out = np_.broadcast_to(out, tuple(d for d in shape if d is not None))
        return out


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """Pick from `choicelist` where the matching `condlist` entry first holds, else `default`.

    Example:
        >>> x = np.arange(4)
        >>> lamina.ops.select([x < 1, x > 2], [x, -x], 9)  # [0, 9, 9, -3]
    """
    return Select()(list(condlist), list(choicelist), default)


class Nonzero(Op):
    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, ...]:
        check_rank(self.op_name, static_shape(x), 1)
        return tuple(SymbolicTensor((None,), "int32") for _ in static_shape(x))

    def call(self, x: Any) -> tuple[Any, ...]:
        x = as_tensor(self.op_name, x)
        check_rank(self.op_name, static_shape(x), 1)
        cast = backend().core.cast
        return tuple(cast(i, "int32") for i in backend().numpy.nonzero(x))


def nonzero(x: Any) -> Any:
    """The indices of the non-zero elements of `x`: one int32 tensor per axis.

    Example:
        >>> lamina.ops.nonzero(np.array([0, 3, 0, 4]))  # ([1, 3],)
    """
    return Nonzero()(x)


class UnravelIndex(Op):
    def __init__(self, shape: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shape = int_tuple(self.op_name, "shape", shape)
        if any(d <= 0 for d in self.shape):
            raise ValueError(
                f"`{self.op_name}`: argument `shape` must be positive. Received: shape={shape!r}"
            )

    def compute_output_spec(self, indices: Any) -> tuple[SymbolicTensor, ...]:
        int_index_dtype(self.op_name, "indices", indices)
        return tuple(SymbolicTensor(static_shape(indices), "int32") for _ in self.shape)

    def call(self, indices: Any) -> tuple[Any, ...]:
        indices = to_tensor(indices, int_index_dtype(self.op_name, "indices", indices))
        cast = backend().core.cast
        return tuple(cast(i, "int32") for i in backend().numpy.unravel_index(indices, self.shape))


def unravel_index(indices: Any, shape: Any) -> Any:
    """Convert flat `indices` into a tuple of int32 coordinate tensors for `shape`.

    Example:
        >>> lamina.ops.unravel_index(np.array([5]), (2, 3))  # ([1], [2])
    """
    return UnravelIndex(shape)(indices)


# ----------------------------------------------------------------------------- diagonals


def _diag_len(rows: int | None, cols: int | None, k: int) -> int | None:
    if rows is None or cols is None:
        return None
    return max(0, min(rows, cols - k)) if k >= 0 else max(0, min(rows + k, cols))


def _k(op: str, k: Any, arg: str = "k") -> int:
    (value,) = int_tuple(op, arg, k)
    return value


class Diag(Op):
    def __init__(self, k: Any = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.k = _k(self.op_name, k)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        check_rank(self.op_name, shape, (1, 2))
        if len(shape) == 1:
            n = None if shape[0] is None else shape[0] + abs(self.k)
            return SymbolicTensor((n, n), dtype_of(x))
        return SymbolicTensor((_diag_len(shape[0], shape[1], self.k),), dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        check_rank(self.op_name, static_shape(x), (1, 2))
        return backend().numpy.diag(x, self.k)


def diag(x: Any, k: int = 0) -> Any:
    """The `k`-th diagonal of a 2-D `x`, or a 2-D tensor with 1-D `x` on that diagonal.

    Example:
        >>> lamina.ops.diag(np.array([1, 2]))  # [[1, 0], [0, 2]]
    """
    return Diag(k)(x)


class Diagflat(Diag):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        n = size_of(static_shape(x))
        n = None if n is None else n + abs(self.k)
        return SymbolicTensor((n, n), dtype_of(x))

    def call(self, x: Any) -> Any:
        flat = backend().numpy.reshape(to_tensor(x), (-1,))
        return backend().numpy.diag(flat, self.k)


def diagflat(x: Any, k: int = 0) -> Any:
    """A 2-D tensor with the flattened `x` on its `k`-th diagonal.

    Example:
        >>> lamina.ops.diagflat(np.array([[1, 2]])).shape  # (2, 2)
    """
    return Diagflat(k)(x)


class Diagonal(Op):
    def __init__(
        self, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.offset = _k(self.op_name, offset, "offset")
        self.axis1 = axis1
        self.axis2 = axis2

    def _spec(self, shape: Shape) -> tuple[Shape, int, int]:
        check_rank(self.op_name, shape, 2)
        a = canonical_axis(self.op_name, self.axis1, len(shape), "axis1")
        b = canonical_axis(self.op_name, self.axis2, len(shape), "axis2")
        if a == b:
            raise ValueError(
                f"`{self.op_name}`: arguments `axis1` and `axis2` must differ. Received: "
                f"axis1={self.axis1}, axis2={self.axis2}"
            )
        rest = tuple(d for i, d in enumerate(shape) if i not in (a, b))
        return rest + (_diag_len(shape[a], shape[b], self.offset),), a, b

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self._spec(static_shape(x))[0], dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        _, a, b = self._spec(static_shape(x))
        return backend().numpy.diagonal(x, self.offset, a, b)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The diagonal at `offset` of the 2-D slices of `x` over `axis1` and `axis2`.

    The diagonal becomes the last axis of the result.

    Example:
        >>> lamina.ops.diagonal(np.arange(4).reshape(2, 2))  # [0, 3]
    """
    return Diagonal(offset, axis1, axis2)(x)


class Tril(Op):
    def __init__(self, k: Any = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.k = _k(self.op_name, k)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        check_rank(self.op_name, static_shape(x), 2)
        return SymbolicTensor(static_shape(x), dtype_of(x))

    def call(self, x: Any) -> Any:
        x = as_tensor(self.op_name, x)
        check_rank(self.op_name, static_shape(x), 2)
        return self.compute(x)

    def compute(self, x: Any) -> Any:
        return composite("numpy", "tril")(x, self.k)


class Triu(Tril):
    def compute(self, x: Any) -> Any:
        return composite("numpy", "triu")(x, self.k)


def tril(x: Any, k: int = 0) -> Any:
    """`x` with the elements above the `k`-th diagonal (of the last two axes) zeroed.

    Example:
        >>> lamina.ops.tril(np.ones((2, 2)))  # [[1., 0.], [1., 1.]]
    """
    return Tril(k)(x)


def triu(x: Any, k: int = 0) -> Any:
    """`x` with the elements below the `k`-th diagonal (of the last two axes) zeroed.

    Example:
        >>> lamina.ops.triu(np.ones((2, 2)))  # [[1., 1.], [0., 1.]]
    """
    return Triu(k)(x)
