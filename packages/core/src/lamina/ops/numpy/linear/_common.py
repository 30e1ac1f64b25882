"""Helpers shared by the products and contractions."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import PromotingBinary
from lamina.ops.shapes import static_shape
from lamina.ops.symbolic import SymbolicTensor

Shape = tuple[int | None, ...]


def _join(op: str, *xs: Any) -> str:
    """The promoted dtype of `xs`, with a TypeError naming `op` when there is none."""
    try:
        return dtypes.result_type(*(dtypes.promotion_key(x) for x in xs))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None


def _mul(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


def _check_dims(op: str, a: int | None, b: int | None, what: str, sa: Shape, sb: Shape) -> None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"`{op}`: {what} must match. Received: x1.shape={sa}, x2.shape={sb}")


class _Binary(PromotingBinary):
    """Two tensors promoted to one dtype; subclasses give the output shape and compute."""

    def shape(self, a: Shape, b: Shape) -> Shape:
        raise NotImplementedError

    def output_dtype(self, dtype: str) -> str:
        return dtype

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        shape = self.shape(static_shape(x1), static_shape(x2))
        return SymbolicTensor(shape, self.output_dtype(_join(self.op_name, x1, x2)))

    def _checked_dtype(self, x1: Any, x2: Any) -> str:
        """Check the shapes; return the dtype the product computes in."""
        self.shape(static_shape(x1), static_shape(x2))
        return self.output_dtype(_join(self.op_name, x1, x2))
