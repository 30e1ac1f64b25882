"""numpy: random sampling with `np.random.default_rng` seeded from the explicit seed."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def _rng(seed: Tensor) -> np.random.Generator:
    return np.random.default_rng([int(s) for s in np.asarray(seed).ravel()])


def _out(x: Any, dtype: DType) -> Tensor:
    return np.asarray(x).astype(to_numpy_dtype(dtype))


def normal(shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_rng(seed).standard_normal(shape) * stddev + mean, dtype)


def uniform(shape: tuple[int, ...], minval: Any, maxval: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_rng(seed).uniform(size=shape) * (maxval - minval) + minval, dtype)


def truncated_normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor
) -> Tensor:
    import scipy.stats

    x = scipy.stats.truncnorm.rvs(-2.0, 2.0, size=shape, random_state=_rng(seed))
    return _out(x * stddev + mean, dtype)


def randint(shape: tuple[int, ...], minval: int, maxval: int, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_rng(seed).integers(minval, maxval, size=shape), dtype)


def categorical(logits: Tensor, num_samples: int, dtype: DType, seed: Tensor) -> Tensor:
    # Gumbel-max: argmax(logits + Gumbel noise) samples softmax(logits), -inf rows included.
    noise = _rng(seed).gumbel(size=(logits.shape[0], num_samples, logits.shape[1]))
    return _out(np.argmax(logits[:, None, :].astype(np.float64) + noise, axis=-1), dtype)


def dropout(inputs: Tensor, rate: float, noise_shape: tuple[int, ...], seed: Tensor) -> Tensor:
    keep = _rng(seed).uniform(size=noise_shape) >= rate
    scale = np.asarray(1.0 / (1.0 - rate), dtype=inputs.dtype)
    return np.where(keep, inputs * scale, np.zeros((), inputs.dtype))


def shuffle(x: Tensor, axis: int, seed: Tensor) -> Tensor:
    return _rng(seed).permutation(x, axis=axis)


def gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_rng(seed).standard_gamma(alpha, size=shape), dtype)


def beta(shape: tuple[int, ...], alpha: Any, beta: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_rng(seed).beta(alpha, beta, size=shape), dtype)


def binomial(
    shape: tuple[int, ...], counts: Any, probabilities: Any, dtype: DType, seed: Tensor
) -> Tensor:
    n = np.asarray(counts).astype(np.int64)
    return _out(_rng(seed).binomial(n, probabilities, size=shape), dtype)
