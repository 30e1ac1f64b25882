"""Encodings (one_hot, multi_hot) and building complex numbers from polar coordinates."""

from __future__ import annotations

import operator
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.nn.activations._common import HALF_FLOATS, float_dtype
from lamina.ops.shapes import Shape, broadcast_shapes, canonical_axis, check_rank, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["multi_hot", "one_hot", "polar"]


def _index_dtype(op: str, x: Any) -> str:
    """Integer inputs keep their dtype; bools and floats are cast to int32."""
    dtype = dtypes.dtype_of(x)
    if dtype in dtypes.INTS:
        return dtype
    if dtype in dtypes.FLOATS or dtype == "bool":
        return "int32"
    raise TypeError(f"`{op}`: argument `x` must be an integer tensor. Received: dtype={dtype}")


class _Encoding(Op):
    def __init__(
        self,
        num_classes: Any,
        axis: int = -1,
        dtype: Any = None,
        sparse: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        op = self.op_name
        try:
            classes = operator.index(num_classes)
        except TypeError:
            raise TypeError(
                f"`{op}`: argument `num_classes` must be an int. "
                f"Received: num_classes={num_classes!r}"
            ) from None
        if classes < 1:
            raise ValueError(
                f"`{op}`: argument `num_classes` must be >= 1. Received: num_classes={classes}"
            )
        if sparse:
            raise ValueError(f"`{op}`: sparse outputs are not supported. Received: sparse=True")
        self.num_classes = classes
        self.axis = axis
        self.sparse = False
        try:
            self.dtype = dtypes.standardize_dtype(dtype)
        except ValueError as e:
            raise TypeError(f"`{op}`: {e}") from None

    def encoded_shape(self, shape: Shape) -> tuple[Shape, int]:
        axis = canonical_axis(self.op_name, self.axis, len(shape) + 1)
        return shape[:axis] + (self.num_classes,) + shape[axis:], axis


class OneHot(_Encoding):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        _index_dtype(self.op_name, x)
        return SymbolicTensor(self.encoded_shape(static_shape(x))[0], self.dtype)

    def call(self, x: Any) -> Any:
        _, axis = self.encoded_shape(static_shape(x))
        x = to_tensor(x, _index_dtype(self.op_name, x))
        return backend().nn.one_hot(x, self.num_classes, axis, self.dtype)


def one_hot(
    x: Any, num_classes: int, axis: int = -1, dtype: Any = None, sparse: bool = False
) -> Any:
    """One-hot encode integer indices; out-of-range (and negative) indices give all zeros.

    Args:
        x: integer tensor of class indices.
        num_classes: the number of classes (size of the new axis).
        axis: where the new axis goes.
        dtype: the output dtype (default `floatx()`).
        sparse: sparse output; not supported (raises ValueError).

    Example:
        >>> lamina.ops.one_hot(np.array([0, 2]), 3)  # [[1., 0., 0.], [0., 0., 1.]]
    """
    return OneHot(num_classes, axis, dtype, sparse)(x)


class MultiHot(_Encoding):
    def output_shape(self, x: Any) -> tuple[Shape, int, int]:
        shape = static_shape(x)
        check_rank(self.op_name, shape, 1, "inputs")
        encoded, axis = self.encoded_shape(shape)
        reduce_axis = 1 if len(shape) > 1 else 0
        return encoded[:reduce_axis] + encoded[reduce_axis + 1 :], axis, reduce_axis

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        _index_dtype(self.op_name, x)
        return SymbolicTensor(self.output_shape(x)[0], self.dtype)

    def call(self, x: Any) -> Any:
        _, axis, reduce_axis = self.output_shape(x)
        x = to_tensor(x, _index_dtype(self.op_name, x))
        return composite("nn", "multi_hot")(x, self.num_classes, axis, reduce_axis, self.dtype)


def multi_hot(
    inputs: Any,
    num_classes: int | None = None,
    axis: int = -1,
    dtype: Any = None,
    sparse: bool = False,
    **kwargs: Any,
) -> Any:
    """Multi-hot encode integer indices: 1 for every class present in a sample.

    A rank-1 input is one sample; otherwise axis 1 holds each sample's indices.

    Args:
        inputs: integer tensor of class indices (rank >= 1).
        num_classes: the number of classes (`num_tokens` is accepted as a legacy alias).
        axis: where the class axis goes before the reduction.
        dtype: the output dtype (default `floatx()`).
        sparse: sparse output; not supported (raises ValueError).

    Example:
        >>> lamina.ops.multi_hot(np.array([[0, 2], [1, 1]]), 3)  # [[1, 0, 1], [0, 1, 0]]
    """
    num_tokens = kwargs.pop("num_tokens", None)
    if kwargs:
        raise TypeError(f"`multi_hot`: unexpected keyword arguments {sorted(kwargs)}.")
    if num_classes is None:
        num_classes = num_tokens
    if num_classes is None:
        raise ValueError("`multi_hot`: argument `num_classes` must be given. Received: None")
    return MultiHot(num_classes, axis, dtype, sparse)(inputs)


class Polar(Op):
    def complex_dtypes(self, abs_: Any, angle: Any) -> tuple[str, str]:
        real = float_dtype(self.op_name, abs_, angle)
        real = "float32" if real in HALF_FLOATS else real
        return real, "complex128" if real == "float64" else "complex64"

    def compute_output_spec(self, abs_: Any, angle: Any) -> SymbolicTensor:
        shape = broadcast_shapes(self.op_name, static_shape(abs_), static_shape(angle))
        return SymbolicTensor(shape, self.complex_dtypes(abs_, angle)[1])

    def call(self, abs_: Any, angle: Any) -> Any:
        broadcast_shapes(self.op_name, static_shape(abs_), static_shape(angle))
        real, _ = self.complex_dtypes(abs_, angle)
        return composite("nn", "polar")(to_tensor(abs_, real), to_tensor(angle, real))


def polar(abs_: Any, angle: Any) -> Any:
    """The complex number ``abs_ * (cos(angle) + 1j * sin(angle))``, element-wise.

    Float64 inputs give complex128; other real inputs give complex64.

    Example:
        >>> lamina.ops.polar(np.array([2.0]), np.array([0.0]))  # [2.+0.j]
    """
    return Polar()(abs_, angle)
