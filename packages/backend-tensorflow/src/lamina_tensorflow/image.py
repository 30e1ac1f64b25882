"""TensorFlow: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from lamina.backend.kit import Tensor


def _moveaxis(x: Tensor, src: int, dst: int) -> Tensor:
    perm = list(range(x.shape.rank))
    perm.insert(dst % len(perm), perm.pop(src % len(perm)))
    return tf.transpose(x, perm)


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = _moveaxis(tf.tensordot(w, x, axes=[[1], [axis]]), 0, axis)
    return x


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return tf.pad(x, paddings, constant_values=tf.cast(constant_value, x.dtype))
    # tf.pad has no "edge" mode: gather NumPy-padded indices for every mode alike.
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            idx = np.pad(np.arange(x.shape[axis]), (before, after), mode=mode)  # type: ignore[call-overload]
            x = tf.gather(x, idx, axis=axis)
    return x
