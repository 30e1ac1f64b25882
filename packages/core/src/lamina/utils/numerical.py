"""Array helpers Keras users reach for around a model: one-hot labels, L2 rows."""

from __future__ import annotations

from typing import Any

import numpy as np


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """Integer labels as one-hot rows (a trailing axis of size 1 is dropped first).

    Raises:
        ValueError: a label is negative or not below `num_classes`.

    Example:
        >>> lamina.utils.to_categorical([0, 2], num_classes=3)  # [[1, 0, 0], [0, 0, 1]]
    """
    labels = np.asarray(x, dtype="int64")
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(
            f"Argument `x` must hold labels in [0, {num_classes}). Received labels from "
            f"{labels.min()} to {labels.max()}."
        )
    out = np.zeros((*labels.shape, num_classes), dtype="float32")
    np.put_along_axis(out, labels[..., None], 1.0, axis=-1)
    return out


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """`x` scaled to unit `order`-norm along `axis` (zero vectors stay zero).

    Runs on the backend through `lamina.ops`, so tensors stay tensors.
    """
    from lamina import ops

    x = ops.convert_to_tensor(x)
    norm = ops.norm(x, ord=order, axis=axis, keepdims=True)
    return ops.divide_no_nan(x, norm)
