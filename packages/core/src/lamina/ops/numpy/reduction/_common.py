"""Dtype rules and base classes shared by the reduction family."""

from __future__ import annotations

import operator
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op, Reduction
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.shapes import canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

_WIDENED = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "int32", "uint16": "int32"}


def accumulating_dtype(dtype: str) -> str:
    """Sums and products of bools and small ints widen to int32, as on every backend."""
    return _WIDENED.get(dtype, dtype)


def float_dtype(dtype: str) -> str:
    """Statistics of bools and ints are floatx; floats and complexes keep their dtype."""
    if dtype in dtypes.FLOATS or dtype in dtypes.COMPLEXES:
        return dtype
    return dtypes.result_type(dtype, float)


def is_inexact(dtype: str) -> bool:
    """Whether a dtype can hold NaN (so the nan* ops differ from the plain ones)."""
    return dtype in dtypes.FLOATS or dtype in dtypes.COMPLEXES


def cast(x: Any, dtype: str) -> Any:
    """`x` (a native tensor) in `dtype`, skipping the no-op cast."""
    return x if dtypes.dtype_of(x) == dtype else backend().core.cast(x, dtype)


def check_int(op: str, value: Any, arg: str, minimum: int | None = None) -> int:
    """`value` as an int (at least `minimum`), else TypeError/ValueError naming `op`."""
    try:
        if isinstance(value, bool):
            raise TypeError
        out = operator.index(value)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `{arg}` must be an int. Received: {arg}={value!r}"
        ) from None
    if minimum is not None and out < minimum:
        raise ValueError(f"`{op}`: argument `{arg}` must be >= {minimum}. Received: {arg}={out}")
    return out


def check_choice(op: str, value: Any, arg: str, choices: tuple[str, ...]) -> str:
    """`value` if it is one of `choices`, else ValueError naming `op`."""
    if value not in choices:
        raise ValueError(
            f"`{op}`: argument `{arg}` must be one of {choices}. Received: {arg}={value!r}"
        )
    return str(value)


def check_not_bool(op: str, dtype: str) -> None:
    """Raise TypeError for ops without a meaning on bools (ptp, diff of bools...)."""
    if dtype == "bool":
        raise TypeError(f"`{op}`: argument `x` must not be bool. Received: x.dtype=bool")


class FloatReduction(Reduction):
    """A statistic (mean, std...) computed in float: int and bool inputs become floatx."""

    def output_dtype(self, dtype: str) -> str:
        return float_dtype(dtype)


class AccumulatingReduction(Reduction):
    """A sum or product: bools and small ints widen to int32 before reducing."""

    def output_dtype(self, dtype: str) -> str:
        return accumulating_dtype(dtype)


class ExtremumReduction(Reduction):
    """max/min: the dtype is kept; an empty reduced axis needs `initial`."""

    def __init__(
        self,
        axis: Any = None,
        keepdims: bool = False,
        initial: Any = None,
        name: str | None = None,
    ):
        super().__init__(axis=axis, keepdims=keepdims, name=name)
        if initial is not None and not isinstance(initial, (int, float)):
            raise TypeError(
                f"`{self.op_name}`: argument `initial` must be a Python number or None. "
                f"Received: initial={initial!r}"
            )
        self.initial = initial

    def check_input(self, shape: tuple[int | None, ...], axes: Any, dtype: str) -> None:
        if self.initial is None:
            check_nonempty(self.op_name, shape, axes)


def check_nonempty(
    op: str, shape: tuple[int | None, ...], axis: int | tuple[int, ...] | None
) -> None:
    """Raise ValueError when a reduction with no identity meets an empty (canonical) axis."""
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    if 0 in (shape[a] for a in axes):
        raise ValueError(
            f"`{op}`: cannot reduce an empty axis without an identity. "
            f"Received: x.shape={shape}, axis={axis!r}"
        )


class ArgReduction(Op):
    """An index-valued reduction over one axis (None: the flattened tensor), as int32."""

    def __init__(self, axis: Any = None, keepdims: bool = False, name: str | None = None):
        super().__init__(name=name)
        self.axis = axis
        self.keepdims = bool(keepdims)

    def _axis(self, x: Any) -> int | None:
        ndim = len(static_shape(x))
        return None if self.axis is None else canonical_axis(self.op_name, self.axis, ndim)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        axis = self._axis(x)
        out: tuple[int | None, ...]
        if axis is None:
            out = tuple(1 for _ in shape) if self.keepdims else ()
        elif self.keepdims:
            out = tuple(1 if i == axis else d for i, d in enumerate(shape))
        else:
            out = tuple(d for i, d in enumerate(shape) if i != axis)
        return SymbolicTensor(out, "int32")

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        axis = self._axis(x)
        check_nonempty(self.op_name, static_shape(x), axis)
        return cast(self.compute(x, axis), "int32")

    def compute(self, x: Any, axis: int | None) -> Any:
        raise NotImplementedError


def single_axis_shape(
    op: str, shape: tuple[int | None, ...], axis: Any
) -> tuple[tuple[int | None, ...], int | None]:
    """The shape an op along one axis sees (flattened when `axis` is None) and that axis."""
    if axis is None:
        size: int | None = 1
        for d in shape:
            size = None if size is None or d is None else size * d
        return (size,), None
    return shape, canonical_axis(op, axis, len(shape))
