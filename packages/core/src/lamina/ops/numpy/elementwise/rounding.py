"""Rounding, clipping and NaN replacement, element-wise."""

from __future__ import annotations

import operator
from typing import Any

import ml_dtypes
import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.numpy.elementwise._base import REALS, RealFloatOp, Unary, check_dtype, finish
from lamina.ops.shapes import broadcast_shapes, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["ceil", "clip", "floor", "nan_to_num", "round", "trunc"]

_FINFO: Any = ml_dtypes.finfo  # knows bfloat16 as well as NumPy's floats


class Clip(Op):
    """Bounds are tensors (or scalars) cast to `x`'s dtype; bool `x` counts as int32."""

    def _dtype(self, x: Any, x_min: Any, x_max: Any) -> str:
        if x_min is None and x_max is None:
            raise ValueError(
                f"`{self.op_name}`: at least one of `x_min` and `x_max` must be given. "
                "Received: x_min=None, x_max=None"
            )
        dtype = dtypes.dtype_of(x)
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return "int32" if dtype == "bool" else dtype

    def _shape(self, *xs: Any) -> tuple[int | None, ...]:
        return broadcast_shapes(self.op_name, *(static_shape(t) for t in xs if t is not None))

    def compute_output_spec(self, x: Any, x_min: Any, x_max: Any) -> SymbolicTensor:
        return SymbolicTensor(self._shape(x, x_min, x_max), self._dtype(x, x_min, x_max))

    def call(self, x: Any, x_min: Any, x_max: Any) -> Any:
        dtype = self._dtype(x, x_min, x_max)
        self._shape(x, x_min, x_max)
        lo = None if x_min is None else to_tensor(x_min, dtype)
        hi = None if x_max is None else to_tensor(x_max, dtype)
        return finish(composite("numpy", "clip")(to_tensor(x, dtype), lo, hi), dtype)


def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    """Limit the values of `x` to ``[x_min, x_max]`` (`x_max` wins if the bounds cross).

    Args:
        x: input tensor (bools count as int32).
        x_min: lower bound, a scalar or a tensor broadcastable with `x`, or None.
        x_max: upper bound, a scalar or a tensor broadcastable with `x`, or None.

    Returns:
        The clipped tensor, in `x`'s dtype.

    Example:
        >>> lamina.ops.clip(np.array([-1, 5, 10]), 0, 6)  # [0, 5, 6]
    """
    return Clip()(x, x_min, x_max)


class Round(Unary):
    """Half-to-even rounding to `decimals` places (negative: tens, hundreds, ...)."""

    def __init__(self, decimals: int = 0, name: str | None = None) -> None:
        super().__init__(name=name)
        try:
            if isinstance(decimals, bool):
                raise TypeError
            self.decimals = operator.index(decimals)
        except TypeError:
            raise TypeError(
                f"`round`: argument `decimals` must be an int. Received: decimals={decimals!r} "
                f"(of type {type(decimals).__name__})"
            ) from None

    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype

    def compute(self, x: Any) -> Any:
        dtype = dtypes.dtype_of(x)
        if dtype in dtypes.FLOATS:
            return backend().numpy.round(x, self.decimals)
        if self.decimals >= 0 or dtype == "bool":
            return x  # integers already have no fractional digits
        return _round_int(x, 10**-self.decimals, dtype)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "decimals": self.decimals}


def _round_int(x: Any, unit: int, dtype: str) -> Any:
    """Round integers to a multiple of `unit`, halves to even, in integer arithmetic."""
    lnp = backend().numpy
    if unit > np.iinfo(dtype).max:
        return lnp.subtract(x, x)  # every value rounds to 0
    p = to_tensor(unit, dtype)
    q, r = lnp.floor_divide(x, p), lnp.mod(x, p)
    rest = lnp.subtract(p, r)  # compare r with p - r: 2 * r could overflow
    odd = lnp.not_equal(lnp.mod(q, to_tensor(2, dtype)), to_tensor(0, dtype))
    up = lnp.logical_or(lnp.greater(r, rest), lnp.logical_and(lnp.equal(r, rest), odd))
    return lnp.multiply(lnp.add(q, backend().core.cast(up, dtype)), p)


def round(x: Any, decimals: int = 0) -> Any:
    """Round to `decimals` decimal places, halves to even; the dtype is kept.

    Example:
        >>> lamina.ops.round(np.array([0.5, 1.5, 2.567]), decimals=0)  # [0., 2., 3.]
    """
    return Round(decimals)(x)


class Ceil(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.ceil(x)


def ceil(x: Any) -> Any:
    """The smallest integer not below each element, as a float (integers become floatx).

    Example:
        >>> lamina.ops.ceil(np.array([1.2, -1.2]))  # [2., -1.]
    """
    return Ceil()(x)


class Floor(RealFloatOp):
    def compute(self, x: Any) -> Any:
        return backend().numpy.floor(x)


def floor(x: Any) -> Any:
    """The largest integer not above each element, as a float (integers become floatx).

    Example:
        >>> lamina.ops.floor(np.array([1.8, -1.2]))  # [1., -2.]
    """
    return Floor()(x)


class Trunc(Unary):
    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype

    def compute(self, x: Any) -> Any:
        if dtypes.dtype_of(x) in dtypes.FLOATS:
            return backend().numpy.trunc(x)
        return x


def trunc(x: Any) -> Any:
    """Round toward zero, element-wise; the dtype is kept.

    Example:
        >>> lamina.ops.trunc(np.array([1.8, -1.8]))  # [1., -1.]
    """
    return Trunc()(x)


def _number(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"`nan_to_num`: argument `{name}` must be a Python number. "
            f"Received: {name}={value!r} (of type {type(value).__name__})"
        )
    return float(value)


class NanToNum(Unary):
    def __init__(
        self,
        nan: float = 0.0,
        posinf: float | None = None,
        neginf: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.nan = _number("nan", nan)
        self.posinf = _number("posinf", posinf)
        self.neginf = _number("neginf", neginf)

    def input_dtype(self, dtype: str) -> str:
        check_dtype(self.op_name, dtype, REALS, "real (bool, integer or float)")
        return dtype

    def compute(self, x: Any) -> Any:
        dtype = dtypes.dtype_of(x)
        if dtype not in dtypes.FLOATS:
            return x  # integers hold no NaN or inf
        info = _FINFO(dtypes.to_numpy_dtype(dtype))
        posinf = float(info.max) if self.posinf is None else self.posinf
        neginf = float(info.min) if self.neginf is None else self.neginf
        return composite("numpy", "nan_to_num")(x, self.nan or 0.0, posinf, neginf)

    def get_config(self) -> dict[str, Any]:
        config = {"nan": self.nan, "posinf": self.posinf, "neginf": self.neginf}
        return {**super().get_config(), **config}


def nan_to_num(
    x: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Any:
    """Replace NaN with `nan` and infinities with `posinf` / `neginf`.

    Args:
        x: input tensor; integer and bool tensors are returned unchanged.
        nan: value for NaN.
        posinf: value for +inf; None means the largest finite value of `x`'s dtype.
        neginf: value for -inf; None means the lowest finite value of `x`'s dtype.

    Example:
        >>> lamina.ops.nan_to_num(np.array([np.nan, np.inf]), posinf=9.0)  # [0., 9.]
    """
    return NanToNum(nan, posinf, neginf)(x)
