"""numpy: activations, losses, normalization and encoding ops."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def sigmoid(x: Tensor) -> Tensor:
    from scipy import special

    return special.expit(x).astype(x.dtype)


def softmax(x: Tensor, axis: tuple[int, ...]) -> Tensor:
    from scipy import special

    return special.softmax(x, axis=axis).astype(x.dtype)


def one_hot(x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
    hot = np.expand_dims(x, -1) == np.arange(num_classes)
    return np.moveaxis(hot, -1, axis).astype(to_numpy_dtype(dtype))
