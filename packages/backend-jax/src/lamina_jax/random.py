"""jax: random sampling with `jax.random`, keyed by the explicit seed (pure, jit-safe)."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def _key(seed: Tensor) -> Any:
    return jax.random.wrap_key_data(jnp.asarray(seed).astype(jnp.uint32), impl="threefry2x32")


def normal(shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor) -> Tensor:
    d = to_numpy_dtype(dtype)
    return (jax.random.normal(_key(seed), shape, d) * stddev + mean).astype(d)


def uniform(shape: tuple[int, ...], minval: Any, maxval: Any, dtype: DType, seed: Tensor) -> Tensor:
    d = to_numpy_dtype(dtype)
    return jax.random.uniform(_key(seed), shape, d, minval, maxval).astype(d)


def truncated_normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor
) -> Tensor:
    d = to_numpy_dtype(dtype)
    x = jax.random.truncated_normal(_key(seed), -2.0, 2.0, shape, d)
    return (x * stddev + mean).astype(d)


def randint(shape: tuple[int, ...], minval: int, maxval: int, dtype: DType, seed: Tensor) -> Tensor:
    d = to_numpy_dtype(dtype)
    return jax.random.randint(_key(seed), shape, minval, maxval, d)


def categorical(logits: Tensor, num_samples: int, dtype: DType, seed: Tensor) -> Tensor:
    out = jax.random.categorical(_key(seed), logits, axis=-1, shape=(num_samples, logits.shape[0]))
    return out.T.astype(to_numpy_dtype(dtype))


def dropout(inputs: Tensor, rate: float, noise_shape: tuple[int, ...], seed: Tensor) -> Tensor:
    keep = jax.random.bernoulli(_key(seed), 1.0 - rate, noise_shape)
    scale = jnp.asarray(1.0 / (1.0 - rate), inputs.dtype)
    return jnp.where(keep, inputs * scale, jnp.zeros((), inputs.dtype))


def shuffle(x: Tensor, axis: int, seed: Tensor) -> Tensor:
    return jax.random.permutation(_key(seed), x, axis=axis, independent=False)


# The rejection samplers are many small primitives: jit them so eager calls compile once
# per shape and dtype instead of dispatching op by op (inside an outer jit they inline).
@functools.partial(jax.jit, static_argnames=("shape", "dtype"))
def _gamma(seed: Tensor, alpha: Any, shape: tuple[int, ...], dtype: Any) -> Tensor:
    return jax.random.gamma(_key(seed), alpha, shape, dtype).astype(dtype)


@functools.partial(jax.jit, static_argnames=("shape", "dtype"))
def _beta(seed: Tensor, alpha: Any, beta: Any, shape: tuple[int, ...], dtype: Any) -> Tensor:
    return jax.random.beta(_key(seed), alpha, beta, shape, dtype).astype(dtype)


@functools.partial(jax.jit, static_argnames=("shape", "dtype"))
def _binomial(seed: Tensor, counts: Any, p: Any, shape: tuple[int, ...], dtype: Any) -> Tensor:
    out = jax.random.binomial(_key(seed), counts, p, shape, jnp.float32)
    return out.astype(dtype)


def gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _gamma(seed, alpha, shape, to_numpy_dtype(dtype))


def beta(shape: tuple[int, ...], alpha: Any, beta: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _beta(seed, alpha, beta, shape, to_numpy_dtype(dtype))


def binomial(
    shape: tuple[int, ...], counts: Any, probabilities: Any, dtype: DType, seed: Tensor
) -> Tensor:
    return _binomial(seed, counts, probabilities, shape, to_numpy_dtype(dtype))
