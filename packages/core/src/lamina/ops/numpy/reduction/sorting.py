"""Sorting, partitioning, searching and unique values."""

from __future__ import annotations

import numbers
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote, to_tensor
from lamina.ops.numpy.reduction._common import (
    cast,
    check_choice,
    check_int,
    single_axis_shape,
)
from lamina.ops.shapes import canonical_axis, check_rank, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["argpartition", "argsort", "searchsorted", "sort", "unique"]


def _check_sortable(op: str, x: Any) -> None:
    dtype = dtypes.dtype_of(x)
    if dtype in dtypes.COMPLEXES + ("string",):
        raise TypeError(f"`{op}`: argument `x` must be real. Received: x.dtype={dtype}")


class _AlongAxis(Op):
    """An op along one axis of rank >= 1 `x` (None: the flattened tensor)."""

    def __init__(self, axis: Any = -1, name: str | None = None):
        super().__init__(name=name)
        self.axis = axis

    def _prepare(self, x: Any) -> tuple[tuple[int | None, ...], int | None]:
        _check_sortable(self.op_name, x)
        shape = static_shape(x)
        check_rank(self.op_name, shape, 1)
        return single_axis_shape(self.op_name, shape, self.axis)


class Sort(_AlongAxis):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape, _ = self._prepare(x)
        return SymbolicTensor(shape, dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        _, axis = self._prepare(x)
        return backend().numpy.sort(to_tensor(x), axis)


def sort(x: Any, axis: Any = -1) -> Any:
    """Sort `x` along `axis` (None: the flattened tensor), ascending.

    Example:
        >>> lamina.ops.sort(np.array([[3, 1], [2, 5]]))  # [[1, 3], [2, 5]]
    """
    return Sort(axis=axis)(x)


class Argsort(_AlongAxis):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape, _ = self._prepare(x)
        return SymbolicTensor(shape, "int32")

    def call(self, x: Any) -> Any:
        _, axis = self._prepare(x)
        return cast(backend().numpy.argsort(to_tensor(x), axis), "int32")


def argsort(x: Any, axis: Any = -1) -> Any:
    """Indices that sort `x` along `axis` (stable: ties keep their order), as int32.

    Example:
        >>> lamina.ops.argsort(np.array([3, 1, 2]))  # [1, 2, 0]
    """
    return Argsort(axis=axis)(x)


class Argpartition(Op):
    def __init__(self, kth: int, axis: int = -1, name: str | None = None):
        super().__init__(name=name)
        self.kth = check_int("argpartition", kth, "kth")
        self.axis = axis

    def _prepare(self, x: Any) -> tuple[int, int]:
        _check_sortable(self.op_name, x)
        shape = static_shape(x)
        check_rank(self.op_name, shape, 1)
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        length = shape[axis]
        kth = self.kth
        if length is not None:
            if not -length <= kth < length:
                raise ValueError(
                    f"`{self.op_name}`: argument `kth` is out of range for an axis of length "
                    f"{length}. Received: kth={kth}"
                )
            kth %= length
        elif kth < 0:
            raise ValueError(
                f"`{self.op_name}`: a negative `kth` needs a known axis length. "
                f"Received: kth={kth}, x.shape={shape}"
            )
        return kth, axis

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        self._prepare(x)
        return SymbolicTensor(static_shape(x), "int32")

    def call(self, x: Any) -> Any:
        kth, axis = self._prepare(x)
        return cast(composite("numpy", "argpartition")(to_tensor(x), kth, axis), "int32")


def argpartition(x: Any, kth: int, axis: int = -1) -> Any:
    """Indices that partition `x` along `axis` around its `kth` smallest element, as int32.

    The element at position `kth` is the one a full sort would put there; smaller or equal
    elements come before it and larger or equal ones after, in no given order.

    Example:
        >>> lamina.ops.argpartition(np.array([3, 4, 2, 1]), 2)  # e.g. [3, 2, 0, 1]
    """
    return Argpartition(kth=kth, axis=axis)(x)


class Searchsorted(Op):
    def __init__(self, side: str = "left", name: str | None = None):
        super().__init__(name=name)
        self.side = check_choice("searchsorted", side, "side", ("left", "right"))

    def _check(self, sorted_sequence: Any, values: Any) -> None:
        check_rank(self.op_name, static_shape(sorted_sequence), (1,), "sorted_sequence")
        _check_sortable(self.op_name, sorted_sequence)
        _check_sortable(self.op_name, values)

    def compute_output_spec(self, sorted_sequence: Any, values: Any) -> SymbolicTensor:
        self._check(sorted_sequence, values)
        return SymbolicTensor(static_shape(values), "int32")

    def call(self, sorted_sequence: Any, values: Any) -> Any:
        self._check(sorted_sequence, values)
        seq, vals = promote(self.op_name, sorted_sequence, values)
        return cast(backend().numpy.searchsorted(seq, vals, self.side), "int32")


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left") -> Any:
    """Indices at which `values` would be inserted into 1-D `sorted_sequence`, as int32.

    Args:
        sorted_sequence: a 1-D ascending tensor.
        values: the values to place.
        side: "left" (first suitable index) or "right" (last).

    Example:
        >>> lamina.ops.searchsorted(np.array([1, 3, 5]), np.array([3, 4]))  # [1, 2]
    """
    return Searchsorted(side=side)(sorted_sequence, values)


class Unique(Op):
    def __init__(
        self,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        axis: Any = None,
        size: Any = None,
        fill_value: Any = None,
        name: str | None = None,
    ):
        super().__init__(name=name)
        self.sorted = bool(sorted)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = axis
        self.size = None if size is None else check_int("unique", size, "size", minimum=0)
        if fill_value is not None and not isinstance(fill_value, numbers.Number):
            raise TypeError(
                "`unique`: argument `fill_value` must be a Python number or None. "
                f"Received: fill_value={fill_value!r}"
            )
        self.fill_value = fill_value

    def _axis(self, x: Any) -> int | None:
        _check_sortable(self.op_name, x)
        shape = static_shape(x)
        if self.axis is None:
            return None
        check_rank(self.op_name, shape, 1)
        return canonical_axis(self.op_name, self.axis, len(shape))

    def _pack(self, values: Any, inverse: Any, counts: Any) -> Any:
        if not (self.return_inverse or self.return_counts):
            return values
        out = [values]
        if self.return_inverse:
            out.append(inverse)
        if self.return_counts:
            out.append(counts)
        return tuple(out)

    def compute_output_spec(self, x: Any) -> Any:
        axis = self._axis(x)
        shape = static_shape(x)
        if axis is None:
            values = SymbolicTensor((self.size,), dtypes.dtype_of(x))
            inverse = SymbolicTensor(shape, "int32")
        else:
            values_shape = list(shape)
            values_shape[axis] = self.size
            values = SymbolicTensor(tuple(values_shape), dtypes.dtype_of(x))
            inverse = SymbolicTensor((shape[axis],), "int32")
        return self._pack(values, inverse, SymbolicTensor((self.size,), "int32"))

    def call(self, x: Any) -> Any:
        axis = self._axis(x)
        x = to_tensor(x)
        values, inverse, counts = composite("numpy", "unique")(
            x, self.return_inverse, self.return_counts, axis, self.size, self.fill_value
        )
        return self._pack(
            values,
            None if inverse is None else cast(inverse, "int32"),
            None if counts is None else cast(counts, "int32"),
        )


def unique(
    x: Any,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
    size: Any = None,
    fill_value: Any = None,
) -> Any:
    """The sorted unique elements of `x` (or unique slices along `axis`).

    Args:
        x: input tensor.
        sorted: kept for Keras compatibility; results are always sorted.
        return_inverse: also return, for each element of `x` (or slice along `axis`), the
            index of its unique value, as int32 (of `x`'s shape when `axis` is None).
        return_counts: also return how often each unique value occurs, as int32.
        axis: None to flatten `x` first, or the axis whose slices are compared.
        size: a fixed output length (needed under jit on some backends): values are
            truncated or padded with `fill_value`, counts padded with 0.
        fill_value: the padding when `size` is given (default: the smallest unique value).

    Returns:
        The unique values, or a tuple (values, [inverse], [counts]).

    Example:
        >>> lamina.ops.unique(np.array([3, 1, 3, 2]))  # [1, 2, 3]
    """
    return Unique(
        sorted=sorted,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
        size=size,
        fill_value=fill_value,
    )(x)
