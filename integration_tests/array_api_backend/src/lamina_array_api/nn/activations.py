"""array API: the activation and encoding primitives the core composes the rest from."""

from __future__ import annotations

from lamina.backend.kit import DType, Tensor
from lamina_array_api._xp import as_dtype, const, index_grid, quiet, xp

__all__ = ["one_hot", "sigmoid", "softmax"]


@quiet
def sigmoid(x: Tensor) -> Tensor:
    # exp of a non-positive number only, so neither tail overflows.
    e = xp.exp(-xp.abs(x))
    one = const(x, 1)
    return xp.where(x >= const(x, 0), one / (one + e), e / (one + e))


@quiet
def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    top = xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(x - xp.where(xp.isfinite(top), top, xp.zeros_like(top)))
    return e / xp.sum(e, axis=axis, keepdims=True)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    hot = xp.astype(x, xp.int64)[..., None] == index_grid(num_classes)
    return xp.astype(xp.moveaxis(hot, -1, axis), as_dtype(dtype))
