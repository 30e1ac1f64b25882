"""Structural ops: slice, slice_update, scatter, scatter_update, unstack, saturate_cast."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import ml_dtypes
import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.shapes import Shape, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor, is_symbolic

__all__ = [
    "saturate_cast",
    "scatter",
    "scatter_update",
    "slice",
    "slice_update",
    "unstack",
]


def _static_shape_arg(op: str, shape: Any) -> tuple[int, ...]:
    """`shape` as a tuple of non-negative Python ints."""
    try:
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `shape` must be a tuple of ints. Received: shape={shape!r}"
        ) from None
    if any(d < 0 for d in dims):
        raise ValueError(
            f"`{op}`: argument `shape` must have non-negative dims. Received: shape={shape!r}"
        )
    return dims


def _check_rank(op: str, arg: str, shape: Shape, ndim: int) -> None:
    if len(shape) != ndim:
        what = f"{arg}={shape}" if arg == "shape" else f"{arg}.shape={shape}"
        raise ValueError(
            f"`{op}`: argument `{arg}` must have one dim per dim of `inputs` ({ndim}). "
            f"Received: {what}"
        )


def _fits(op: str, arg: str, block: Shape, full: Shape) -> None:
    """Raise unless a block of shape `block` fits in `full` (where dims are known)."""
    if any(b is not None and f is not None and b > f for b, f in zip(block, full)):
        raise ValueError(
            f"`{op}`: argument `{arg}` must fit inside `inputs` of shape {full}. "
            f"Received: {arg} shape {block}"
        )


def _start_indices(op: str, start_indices: Any, ndim: int) -> tuple[Any, ...]:
    """One start per dim: Python ints stay ints, scalar tensors stay tensors."""
    if isinstance(start_indices, np.ndarray):
        start_indices = start_indices.tolist()
    if isinstance(start_indices, (list, tuple)):
        starts = tuple(start_indices)
    else:
        shape = static_shape(start_indices)
        if len(shape) != 1:
            raise ValueError(
                f"`{op}`: argument `start_indices` must be a list of ints or a 1-D tensor. "
                f"Received: start_indices of shape {shape}"
            )
        starts = tuple(start_indices[i] for i in range(shape[0] or 0))
    if len(starts) != ndim:
        raise ValueError(
            f"`{op}`: argument `start_indices` must have one entry per dim of `inputs` "
            f"({ndim}). Received: start_indices={start_indices!r}"
        )
    out = []
    for s in starts:
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            out.append(int(s))
        elif dtypes.dtype_of(s) in dtypes.INTS:
            out.append(to_tensor(s))
        else:
            raise TypeError(
                f"`{op}`: argument `start_indices` must hold integers. "
                f"Received: start_indices={start_indices!r}"
            )
    return tuple(out)


def _clamp(starts: tuple[Any, ...], block: Shape, full: Shape) -> tuple[Any, ...]:
    """Python-int starts made to fit, as `jax.lax.dynamic_slice` does.

    A negative start counts from the end of its dim; then it is clamped so the block fits.
    """
    out = []
    for s, b, f in zip(starts, block, full):
        if isinstance(s, int) and f is not None and b is not None:
            s = min(max(s + f if s < 0 else s, 0), f - b)
        out.append(s)
    return tuple(out)


def _as_dtype(x: Any, dtype: str) -> Any:
    """`x` as a tensor of `dtype` (cast after conversion: TF won't convert 1.5 to int)."""
    x = to_tensor(x)
    return x if dtypes.dtype_of(x) == dtype else backend().core.cast(x, dtype)


class Slice(Op):
    def __init__(self, shape: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shape = _static_shape_arg(self.op_name, shape)

    def _check(self, inputs: Any) -> Shape:
        full = static_shape(inputs)
        _check_rank(self.op_name, "shape", self.shape, len(full))
        _fits(self.op_name, "shape", self.shape, full)
        return full

    def compute_output_spec(self, inputs: Any, start_indices: Any) -> SymbolicTensor:
        full = self._check(inputs)
        if not is_symbolic(start_indices):
            _start_indices(self.op_name, start_indices, len(full))
        return SymbolicTensor(self.shape, dtypes.dtype_of(inputs))

    def call(self, inputs: Any, start_indices: Any) -> Any:
        x = to_tensor(inputs)
        full = self._check(x)
        starts = _clamp(_start_indices(self.op_name, start_indices, len(full)), self.shape, full)
        return composite("control_flow", "slice")(x, starts, self.shape)


def slice(inputs: Any, start_indices: Any, shape: Any) -> Any:
    """The block of `inputs` of size `shape` starting at `start_indices`.

    As in `jax.lax.dynamic_slice`, a negative start counts from the end and starts are
    clamped so that the block fits inside `inputs`; they may be tensors, `shape` must be
    static.

    Example:
        >>> lamina.ops.slice(np.arange(10), (2,), (3,))  # [2, 3, 4]
    """
    return Slice(shape)(inputs, start_indices)


class SliceUpdate(Op):
    def _check(self, inputs: Any, updates: Any) -> Shape:
        full = static_shape(inputs)
        block = static_shape(updates)
        _check_rank(self.op_name, "updates", block, len(full))
        _fits(self.op_name, "updates", block, full)
        return full

    def compute_output_spec(self, inputs: Any, start_indices: Any, updates: Any) -> SymbolicTensor:
        full = self._check(inputs, updates)
        if not is_symbolic(start_indices):
            _start_indices(self.op_name, start_indices, len(full))
        return SymbolicTensor(full, dtypes.dtype_of(inputs))

    def call(self, inputs: Any, start_indices: Any, updates: Any) -> Any:
        x = to_tensor(inputs)
        u = _as_dtype(updates, dtypes.dtype_of(x))
        full = self._check(x, u)
        starts = _start_indices(self.op_name, start_indices, len(full))
        starts = _clamp(starts, static_shape(u), full)
        return backend().control_flow.slice_update(x, starts, u)


def slice_update(inputs: Any, start_indices: Any, updates: Any) -> Any:
    """`inputs` with the block at `start_indices` replaced by `updates`.

    `updates` is cast to the dtype of `inputs`; starts are clamped so the block fits.

    Example:
        >>> lamina.ops.slice_update(np.zeros(5), (1,), np.ones(2))  # [0, 1, 1, 0, 0]
    """
    return SliceUpdate()(inputs, start_indices, updates)


def _check_scatter(op: str, indices: Any, updates: Any, full: Shape, arg: str) -> None:
    """Indices are ints of shape (..., k); `arg` has shape ``indices[:-1] + full[k:]``."""
    if dtypes.dtype_of(indices) not in dtypes.INTS:
        raise TypeError(
            f"`{op}`: argument `indices` must be integers. "
            f"Received: indices.dtype={dtypes.dtype_of(indices)}"
        )
    ishape = static_shape(indices)
    if not ishape or ishape[-1] is None or ishape[-1] > len(full):
        raise ValueError(
            f"`{op}`: argument `indices` must have shape (..., k) with k <= {len(full)} "
            f"(the rank of the target). Received: indices.shape={ishape}"
        )
    expected = (*ishape[:-1], *full[ishape[-1] :])
    got = static_shape(updates)
    if len(got) != len(expected) or any(
        a is not None and b is not None and a != b for a, b in zip(got, expected)
    ):
        raise ValueError(
            f"`{op}`: argument `{arg}` must have shape {expected} "
            f"(indices.shape[:-1] + target.shape[k:]). Received: {arg}.shape={got}"
        )


class Scatter(Op):
    def __init__(self, shape: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.shape = _static_shape_arg(self.op_name, shape)

    def compute_output_spec(self, indices: Any, values: Any) -> SymbolicTensor:
        _check_scatter(self.op_name, indices, values, self.shape, "values")
        return SymbolicTensor(self.shape, dtypes.dtype_of(values))

    def call(self, indices: Any, values: Any) -> Any:
        indices, values = to_tensor(indices), to_tensor(values)
        _check_scatter(self.op_name, indices, values, self.shape, "values")
        return backend().control_flow.scatter(indices, values, self.shape)


def scatter(indices: Any, values: Any, shape: Any) -> Any:
    """A zero tensor of `shape` with `values` added at `indices` (duplicates are summed).

    Args:
        indices: integers of shape ``(..., k)``, each row indexing the first k dims.
        values: shape ``indices.shape[:-1] + shape[k:]``.
        shape: the static output shape.

    Example:
        >>> lamina.ops.scatter([[0], [2]], [1.0, 2.0], (4,))  # [1, 0, 2, 0]
    """
    return Scatter(shape)(indices, values)


class ScatterUpdate(Op):
    def compute_output_spec(self, inputs: Any, indices: Any, updates: Any) -> SymbolicTensor:
        full = static_shape(inputs)
        _check_scatter(self.op_name, indices, updates, full, "updates")
        return SymbolicTensor(full, dtypes.dtype_of(inputs))

    def call(self, inputs: Any, indices: Any, updates: Any) -> Any:
        x = to_tensor(inputs)
        indices, u = to_tensor(indices), _as_dtype(updates, dtypes.dtype_of(x))
        _check_scatter(self.op_name, indices, u, static_shape(x), "updates")
        return backend().control_flow.scatter_update(x, indices, u)


def scatter_update(inputs: Any, indices: Any, updates: Any) -> Any:
    """`inputs` with the entries at `indices` set to `updates` (cast to its dtype).

    Example:
        >>> lamina.ops.scatter_update(np.zeros((2, 2)), [[0, 1]], [5.0])  # [[0,5],[0,0]]
    """
    return ScatterUpdate()(inputs, indices, updates)


class Unstack(Op):
    def __init__(self, num: int | None = None, axis: int = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        if num is not None:
            try:
                num = operator.index(num)
            except TypeError:
                raise TypeError(
                    f"`unstack`: argument `num` must be an int or None. Received: num={num!r}"
                ) from None
        self.num = num
        self.axis = axis

    def _resolve(self, shape: Shape) -> tuple[int, int]:
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        if not shape:
            raise ValueError("`unstack`: argument `x` must have rank >= 1. Received a scalar.")
        dim = shape[axis]
        if dim is None and self.num is None:
            raise ValueError(
                f"`unstack`: the size of axis {self.axis} of `x` is unknown; pass `num`. "
                f"Received: x.shape={shape}"
            )
        if dim is not None and self.num is not None and dim != self.num:
            raise ValueError(
                f"`unstack`: argument `num` must match the size of axis {self.axis}. "
                f"Received: num={self.num}, x.shape={shape}"
            )
        return (dim if dim is not None else self.num), axis  # type: ignore[return-value]

    def compute_output_spec(self, x: Any) -> list[SymbolicTensor]:
        shape = static_shape(x)
        num, axis = self._resolve(shape)
        part = shape[:axis] + shape[axis + 1 :]
        return [SymbolicTensor(part, dtypes.dtype_of(x)) for _ in range(num)]

    def call(self, x: Any) -> list[Any]:
        x = to_tensor(x)
        num, axis = self._resolve(static_shape(x))
        return list(composite("control_flow", "unstack")(x, num, axis))


def unstack(x: Any, num: int | None = None, axis: int = 0) -> list[Any]:
    """Split `x` along `axis` into a list of tensors with that axis removed.

    Example:
        >>> len(lamina.ops.unstack(np.zeros((3, 2))))  # 3
    """
    result: list[Any] = Unstack(num, axis)(x)
    return result


def _limits(dtype: str) -> tuple[Any, Any]:
    if dtype == "bool":
        return 0, 1
    if dtype in dtypes.INTS:
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    finfo = ml_dtypes.finfo(dtypes.to_numpy_dtype(dtype))
    return float(finfo.min), float(finfo.max)


def _saturation_bounds(in_dtype: str, out_dtype: str) -> tuple[Any, Any]:
    """The clip range, in `in_dtype`, whose values all land inside `out_dtype`'s range."""
    np_in = dtypes.to_numpy_dtype(in_dtype)
    (in_lo, in_hi), (out_lo, out_hi) = _limits(in_dtype), _limits(out_dtype)
    lo = np.asarray(builtins.max(in_lo, out_lo)).astype(np_in)
    hi = np.asarray(builtins.min(in_hi, out_hi)).astype(np_in)
    # Rounding into a float input dtype can step outside the target range: step back.
    if lo.astype(np.float64) < out_lo:
        lo = np.nextafter(lo, np.zeros((), np_in))
    if hi.astype(np.float64) > out_hi:
        hi = np.nextafter(hi, np.zeros((), np_in))
    return lo.item(), hi.item()


class SaturateCast(Op):
    def __init__(self, dtype: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dtype = dtypes.standardize_dtype(dtype)
        self._check_dtype("dtype", self.dtype)

    def _check_dtype(self, arg: str, dtype: str) -> None:
        if dtype not in dtypes.BOOL + dtypes.INTS + dtypes.FLOATS:
            raise TypeError(
                f"`saturate_cast`: argument `{arg}` must be a bool, integer or float dtype. "
                f"Received: {arg}={dtype}"
            )

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        self._check_dtype("x.dtype", dtypes.dtype_of(x))
        return SymbolicTensor(static_shape(x), self.dtype)

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        in_dtype = dtypes.dtype_of(x)
        self._check_dtype("x.dtype", in_dtype)
        (in_lo, in_hi), (out_lo, out_hi) = _limits(in_dtype), _limits(self.dtype)
        if out_lo <= in_lo and in_hi <= out_hi:
            return backend().core.cast(x, self.dtype)
        lo, hi = _saturation_bounds(in_dtype, self.dtype)
        return composite("control_flow", "saturate_cast")(x, self.dtype, lo, hi)


def saturate_cast(x: Any, dtype: Any) -> Any:
    """Cast `x` to `dtype`, clipping values to the range `dtype` can hold.

    Example:
        >>> lamina.ops.saturate_cast(np.array([-1.0, 300.0]), "uint8")  # [0, 255]
    """
    return SaturateCast(dtype)(x)
