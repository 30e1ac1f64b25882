"""jax: activations, losses, normalization and encoding ops."""

from __future__ import annotations

import jax

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def sigmoid(x: Tensor) -> Tensor:
    return jax.nn.sigmoid(x)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    return jax.nn.softmax(x, axis=axis)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    return jax.nn.one_hot(x, num_classes, dtype=to_numpy_dtype(dtype), axis=axis)
