"""tensorflow: random sampling with the stateless `tf.random.stateless_*` ops."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from lamina.backend.kit import DType, Tensor


def _seed(seed: Tensor) -> Tensor:
    return tf.cast(seed, tf.int64)


def normal(shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor) -> Tensor:
    return tf.random.stateless_normal(shape, _seed(seed), mean, stddev, dtype=dtype)


def uniform(shape: tuple[int, ...], minval: Any, maxval: Any, dtype: DType, seed: Tensor) -> Tensor:
    return tf.random.stateless_uniform(shape, _seed(seed), minval, maxval, dtype=dtype)


def truncated_normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor
) -> Tensor:
    return tf.random.stateless_truncated_normal(shape, _seed(seed), mean, stddev, dtype=dtype)


def randint(shape: tuple[int, ...], minval: int, maxval: int, dtype: DType, seed: Tensor) -> Tensor:
    # Stateless integer sampling exists for int32/int64 only: draw int64 and cast.
    x = tf.random.stateless_uniform(
        shape, _seed(seed), minval=minval, maxval=maxval, dtype=tf.int64
    )
    return tf.cast(x, dtype)


def categorical(logits: Tensor, num_samples: int, dtype: DType, seed: Tensor) -> Tensor:
    out = tf.random.stateless_categorical(logits, num_samples, _seed(seed), dtype=tf.int64)
    return tf.cast(out, dtype)


def dropout(inputs: Tensor, rate: float, noise_shape: tuple[int, ...], seed: Tensor) -> Tensor:
    keep = tf.random.stateless_uniform(noise_shape, _seed(seed)) >= rate
    scale = tf.constant(1.0 / (1.0 - rate), inputs.dtype)
    return tf.where(keep, inputs * scale, tf.zeros((), inputs.dtype))


def shuffle(x: Tensor, axis: int, seed: Tensor) -> Tensor:
    keys = tf.random.stateless_uniform(tf.shape(x)[axis : axis + 1], _seed(seed))
    return tf.gather(x, tf.argsort(keys), axis=axis)


def _gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    # stateless_gamma has no bfloat16 kernel: sample float32 for half types and cast.
    sample = "float32" if dtype in ("bfloat16", "float16") else dtype
    return tf.cast(tf.random.stateless_gamma(shape, seed, alpha, dtype=sample), dtype)


def gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _gamma(shape, alpha, dtype, _seed(seed))


def beta(shape: tuple[int, ...], alpha: Any, beta: Any, dtype: DType, seed: Tensor) -> Tensor:
    # Beta(a, b) = X / (X + Y) for X ~ Gamma(a), Y ~ Gamma(b) from two split seeds.
    seeds = tf.random.experimental.stateless_split(_seed(seed), 2)
    x = _gamma(shape, alpha, "float64", seeds[0])
    y = _gamma(shape, beta, "float64", seeds[1])
    return tf.cast(x / (x + y), dtype)


def binomial(
    shape: tuple[int, ...], counts: Any, probabilities: Any, dtype: DType, seed: Tensor
) -> Tensor:
    out = tf.random.stateless_binomial(
        shape,
        _seed(seed),
        tf.cast(counts, tf.float64),
        tf.cast(probabilities, tf.float64),
        output_dtype=tf.float64,
    )
    return tf.cast(out, dtype)
