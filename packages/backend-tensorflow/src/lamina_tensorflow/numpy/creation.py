"""tensorflow: creation ops."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.kit import DType, Tensor


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    return tf.broadcast_to(tf.cast(fill_value, dtype), shape)


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    return tf.broadcast_to(tf.cast(fill_value, dtype), tf.shape(x))


def copy(x: Tensor) -> Tensor:
    return tf.identity(x)


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    # tf.range has no float16/bfloat16 kernel; count in float32 and cast.
    work = "float32" if dtype in ("float16", "bfloat16") else dtype
    return tf.cast(tf.range(start, stop, step, dtype=work), dtype)


def _move_first(x: Tensor, axis: int) -> Tensor:
    if axis == 0:
        return x
    perm = list(range(1, axis + 1)) + [0] + list(range(axis + 1, len(x.shape)))
    return tf.transpose(x, perm)


def _linspace0(start: Tensor, stop: Tensor, num: int, endpoint: bool) -> tuple[Tensor, Tensor]:
    """Samples along a new leading axis, as start + i * step (tf.linspace has no endpoint)."""
    shape = tf.broadcast_dynamic_shape(tf.shape(start), tf.shape(stop))
    start, stop = tf.broadcast_to(start, shape), tf.broadcast_to(stop, shape)
    div = num - 1 if endpoint else num
    delta = stop - start
    step = delta / tf.cast(div, delta.dtype) if div > 0 else tf.fill(shape, float("nan"))
    step = tf.cast(step, delta.dtype)
    i = tf.reshape(tf.range(num, dtype=tf.float32), [num] + [1] * len(start.shape))
    samples = start + tf.cast(i, start.dtype) * (step if div > 0 else delta)
    if endpoint and num > 1:
        samples = tf.concat([samples[:-1], stop[None]], 0)
    return samples, step


def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    samples, step = _linspace0(start, stop, num, endpoint)
    return _move_first(samples, axis), step


def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    shape = tf.broadcast_dynamic_shape(tf.shape(start), tf.shape(stop))
    start, stop = tf.broadcast_to(start, shape), tf.broadcast_to(stop, shape)
    logs, _ = _linspace0(tf.math.log(tf.abs(start)), tf.math.log(tf.abs(stop)), num, endpoint)
    samples = tf.sign(start) * tf.exp(logs)
    if num > 0:
        # Pin the endpoints exactly, as NumPy does.
        samples = tf.concat([start[None], samples[1:]], 0)
        if endpoint and num > 1:
            samples = tf.concat([samples[:-1], stop[None]], 0)
    return _move_first(samples, axis)
