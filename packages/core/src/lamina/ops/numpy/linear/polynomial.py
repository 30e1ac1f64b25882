"""Polynomials and integration of sampled functions: vander and trapezoid."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import to_tensor
from lamina.ops.numpy.linear._common import Shape, _check_dims
from lamina.ops.shapes import broadcast_shapes, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["trapezoid", "vander"]


class Trapezoid(Op):
    def __init__(self, dx: float = 1.0, axis: int = -1, name: str | None = None) -> None:
        super().__init__(name=name)
        self.dx = float(dx)
        self.axis = axis

    def plan(self, y: Any, x: Any) -> tuple[int, Shape, str]:
        shape = static_shape(y)
        if not shape:
            raise ValueError(
                f"`{self.op_name}`: argument `y` must have rank >= 1. Received: y.shape=()"
            )
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        keys = [dtypes.promotion_key(y), 1.0]
        if x is not None:
            xs = static_shape(x)
            if len(xs) == 1:
                _check_dims(self.op_name, xs[0], shape[axis], "`x` and `y` along `axis`", xs, shape)
            else:
                broadcast_shapes(self.op_name, xs, shape)
            keys.append(dtypes.promotion_key(x))
        try:
            dtype = dtypes.result_type(*keys)
        except ValueError as e:
            raise TypeError(f"`{self.op_name}`: {e}") from None
        return axis, shape[:axis] + shape[axis + 1 :], dtype

    def compute_output_spec(self, y: Any, x: Any = None) -> SymbolicTensor:
        _, shape, dtype = self.plan(y, x)
        return SymbolicTensor(shape, dtype)

    def call(self, y: Any, x: Any = None) -> Any:
        axis, _, dtype = self.plan(y, x)
        xt = None if x is None else to_tensor(x, dtype)
        return composite("numpy", "trapezoid")(to_tensor(y, dtype), xt, self.dx, axis)


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """Integrate `y` along `axis` with the trapezoidal rule (ints become floats).

    Args:
        y: the values to integrate.
        x: the sample points (1-D along `axis`, or broadcastable to `y`); None means
            spacing `dx`.

    Example:
        >>> lamina.ops.trapezoid([1.0, 2.0, 3.0])  # 4.0
    """
    return Trapezoid(dx=dx, axis=axis)(y, x)


class Vander(Op):
    def __init__(
        self, N: int | None = None, increasing: bool = False, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        if N is not None and (isinstance(N, bool) or not isinstance(N, int) or N < 0):
            raise ValueError(
                f"`vander`: argument `N` must be a non-negative int or None. Received: N={N!r}"
            )
        self.N = N
        self.increasing = bool(increasing)

    def shape(self, x: Any) -> Shape:
        shape = static_shape(x)
        if len(shape) != 1:
            raise ValueError(
                f"`{self.op_name}`: argument `x` must be 1-D. Received: x.shape={shape}"
            )
        return (shape[0], shape[0] if self.N is None else self.N)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self.shape(x), dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        n = self.shape(x)[1]
        assert n is not None
        return composite("numpy", "vander")(to_tensor(x), n, self.increasing)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """Vandermonde matrix: columns are powers of `x` (decreasing unless `increasing`).

    Example:
        >>> lamina.ops.vander([1, 2, 3], N=2)  # [[1, 1], [2, 1], [3, 1]]
    """
    return Vander(N=N, increasing=increasing)(x)
