"""array API: random sampling, from a counter-based generator written on integer ops.

The standard has no random numbers. Each sample here is a pure function of the seed and its
position: SplitMix64's finalizer (shifts, xors and wrapping uint64 products, all standard
ops) hashes ``key + position``, so the same seed always gives the same tensor and no state
is kept. Floats come from the top bits; normals by Box-Muller, truncated normals by the
inverse CDF, gammas by Marsaglia-Tsang with a fixed number of vectorized rounds.
"""

from __future__ import annotations

import math
from typing import Any

from lamina.backend.kit import DType, Tensor
from lamina_array_api._special import erfinv
from lamina_array_api._xp import as_dtype, quiet, xp

__all__ = [
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_GAMMA_ROUNDS = 12
"""Marsaglia-Tsang accepts over 95% of proposals; 12 rounds leave ~1e-16 unaccepted."""


def _mix(z: Tensor) -> Tensor:
    z = (z ^ (z >> 30)) * _MIX1
    z = (z ^ (z >> 27)) * _MIX2
    return z ^ (z >> 31)


def _bits(seed: Tensor, shape: tuple[int, ...], stream: int = 0) -> Tensor:
    """uint64 random bits of `shape`, for one `stream` of draws from `seed`."""
    parts = xp.astype(xp.reshape(seed, (-1,)), xp.uint64)
    key = xp.asarray(stream * _GOLDEN % 2**64, dtype=xp.uint64)
    for i in range(parts.shape[0]):
        key = _mix(key ^ parts[i] + _GOLDEN)
    count = math.prod(shape)
    positions = xp.arange(count, dtype=xp.uint64)
    return xp.reshape(_mix(key + positions * _GOLDEN), shape)


def _unit(seed: Tensor, shape: tuple[int, ...], stream: int = 0) -> Tensor:
    """Uniform float64 samples in [0, 1) with 53 random bits."""
    top = xp.astype(_bits(seed, shape, stream) >> 11, xp.float64)
    return top * 2.0**-53


def _open_unit(seed: Tensor, shape: tuple[int, ...], stream: int = 0) -> Tensor:
    """Uniform float64 samples in (0, 1): safe under log."""
    return _unit(seed, shape, stream) + 2.0**-54


def _f64(v: Any) -> Tensor:
    return xp.astype(xp.asarray(v), xp.float64)


def _out(x: Tensor, dtype: DType) -> Tensor:
    return xp.astype(x, as_dtype(dtype))


def _standard_normal(seed: Tensor, shape: tuple[int, ...], stream: int = 0) -> Tensor:
    u1 = _open_unit(seed, shape, 2 * stream)
    u2 = _unit(seed, shape, 2 * stream + 1)
    return xp.sqrt(-2.0 * xp.log(u1)) * xp.cos(2.0 * math.pi * u2)


def normal(shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_standard_normal(seed, shape) * _f64(stddev) + _f64(mean), dtype)


def uniform(shape: tuple[int, ...], minval: Any, maxval: Any, dtype: DType, seed: Tensor) -> Tensor:
    lo, hi = _f64(minval), _f64(maxval)
    return _out(_unit(seed, shape) * (hi - lo) + lo, dtype)


@quiet
def truncated_normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor
) -> Tensor:
    # Inverse CDF on the uniform restricted to (Phi(-2), Phi(2)).
    edge = math.erf(2.0 / math.sqrt(2.0))
    u = (_open_unit(seed, shape) * 2.0 - 1.0) * edge
    z = math.sqrt(2.0) * erfinv(u)
    return _out(z * _f64(stddev) + _f64(mean), dtype)


def randint(shape: tuple[int, ...], minval: int, maxval: int, dtype: DType, seed: Tensor) -> Tensor:
    span = max(int(maxval) - int(minval), 1)
    offset = xp.astype(_bits(seed, shape) % span, xp.int64)
    return _out(offset + int(minval), dtype)


@quiet
def categorical(logits: Tensor, num_samples: int, dtype: DType, seed: Tensor) -> Tensor:
    # Gumbel-max: argmax(logits + Gumbel noise) samples softmax(logits), -inf rows included.
    batch, classes = logits.shape
    u = _open_unit(seed, (batch, num_samples, classes))
    noisy = xp.astype(logits, xp.float64)[:, None, :] - xp.log(-xp.log(u))
    return _out(xp.argmax(noisy, axis=-1), dtype)


def dropout(inputs: Tensor, rate: float, noise_shape: tuple[int, ...], seed: Tensor) -> Tensor:
    keep = _unit(seed, tuple(noise_shape)) >= rate
    scale = xp.asarray(1.0 / (1.0 - rate), dtype=inputs.dtype)
    return xp.where(keep, inputs * scale, xp.zeros((), dtype=inputs.dtype))


def shuffle(x: Tensor, axis: int, seed: Tensor) -> Tensor:
    order = xp.argsort(_unit(seed, (x.shape[axis],)), stable=True)
    return xp.take(x, order, axis=axis)


@quiet
def _gamma(shape: tuple[int, ...], alpha: Any, seed: Tensor, stream: int) -> Tensor:
    a = xp.broadcast_to(_f64(alpha), shape)
    boost = a < 1.0  # gamma(a) = gamma(a + 1) * U ** (1 / a) for a < 1
    d = xp.where(boost, a + 1.0, a) - 1.0 / 3.0
    c = 1.0 / xp.sqrt(9.0 * d)
    value = d  # replaced by the first accepted proposal of each entry
    done = xp.zeros(shape, dtype=xp.bool)
    for r in range(_GAMMA_ROUNDS):
        z = _standard_normal(seed, shape, 3 * (stream * _GAMMA_ROUNDS + r))
        u = _open_unit(seed, shape, 3 * (stream * _GAMMA_ROUNDS + r) + 2)
        v = (1.0 + c * z) ** 3
        safe_v = xp.where(v > 0, v, xp.ones_like(v))
        ok = (v > 0) & (xp.log(u) < 0.5 * z * z + d - d * safe_v + d * xp.log(safe_v))
        value = xp.where(ok & ~done, d * safe_v, value)
        done = done | ok
    u = _open_unit(seed, shape, 3 * (stream + 1) * _GAMMA_ROUNDS + 1)
    return xp.where(boost, value * u ** (1.0 / a), value)


def gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _out(_gamma(shape, alpha, seed, 0), dtype)


def beta(shape: tuple[int, ...], alpha: Any, beta: Any, dtype: DType, seed: Tensor) -> Tensor:
    x = _gamma(shape, alpha, seed, 0)
    y = _gamma(shape, beta, seed, 1)
    return _out(x / (x + y), dtype)


def binomial(
    shape: tuple[int, ...], counts: Any, probabilities: Any, dtype: DType, seed: Tensor
) -> Tensor:
    n = xp.broadcast_to(xp.astype(xp.asarray(counts), xp.int64), shape)
    p = xp.broadcast_to(_f64(probabilities), shape)
    trials = int(xp.max(n)) if math.prod(shape) else 0
    # One Bernoulli draw per trial, counted where the trial is within that entry's count.
    u = _unit(seed, (trials, *shape))
    index = xp.reshape(xp.arange(trials, dtype=xp.int64), (trials, *(1,) * len(shape)))
    hits = (u < p[None, ...]) & (index < n[None, ...])
    return _out(xp.sum(xp.astype(hits, xp.int64), axis=0), dtype)
