"""torch: random sampling with a `torch.Generator` seeded from the explicit seed."""

from __future__ import annotations

import math
from typing import Any

import torch

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import default_device, to_torch_dtype

_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _seed_int(seed: Tensor) -> int:
    hi, lo = (int(s) for s in seed.reshape(-1).tolist())
    return ((hi << 32) ^ lo) & 0xFFFF_FFFF_FFFF_FFFF


def _generator(seed: Tensor, device: torch.device) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(_seed_int(seed))
    return gen


def _sample_dtype(dtype: DType) -> torch.dtype:
    # Sample half types in float32 and cast: same stream whatever the output precision.
    d = to_torch_dtype(dtype)
    return torch.float32 if d in _LOW_PRECISION else d


def normal(shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor) -> Tensor:
    dev = default_device()
    x = torch.randn(shape, generator=_generator(seed, dev), dtype=_sample_dtype(dtype), device=dev)
    return (x * stddev + mean).to(to_torch_dtype(dtype))


def uniform(shape: tuple[int, ...], minval: Any, maxval: Any, dtype: DType, seed: Tensor) -> Tensor:
    dev = default_device()
    x = torch.rand(shape, generator=_generator(seed, dev), dtype=_sample_dtype(dtype), device=dev)
    return (x * (maxval - minval) + minval).to(to_torch_dtype(dtype))


def truncated_normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, dtype: DType, seed: Tensor
) -> Tensor:
    # Inverse CDF on [Phi(-2), Phi(2)]: exact and needs a single draw per sample.
    dev = default_device()
    lo = 0.5 * (1.0 + math.erf(-2.0 / math.sqrt(2.0)))
    u = torch.rand(shape, generator=_generator(seed, dev), dtype=torch.float64, device=dev)
    x = math.sqrt(2.0) * torch.erfinv(2.0 * (lo + u * (1.0 - 2.0 * lo)) - 1.0)
    x = x.clamp(-2.0, 2.0).to(_sample_dtype(dtype))
    return (x * stddev + mean).to(to_torch_dtype(dtype))


def randint(shape: tuple[int, ...], minval: int, maxval: int, dtype: DType, seed: Tensor) -> Tensor:
    # Sample int64 (torch lacks randint for uint16/32/64) and cast.
    dev = default_device()
    gen = _generator(seed, dev)
    x = torch.randint(minval, maxval, shape, generator=gen, dtype=torch.int64, device=dev)
    return x.to(to_torch_dtype(dtype))


def categorical(logits: Tensor, num_samples: int, dtype: DType, seed: Tensor) -> Tensor:
    probs = torch.softmax(logits.to(torch.float64), dim=-1)
    gen = _generator(seed, logits.device)
    out = torch.multinomial(probs, num_samples, replacement=True, generator=gen)
    return out.to(to_torch_dtype(dtype))


def dropout(inputs: Tensor, rate: float, noise_shape: tuple[int, ...], seed: Tensor) -> Tensor:
    gen = _generator(seed, inputs.device)
    keep = torch.rand(noise_shape, generator=gen, device=inputs.device) >= rate
    return torch.where(keep, inputs * (1.0 / (1.0 - rate)), torch.zeros((), dtype=inputs.dtype))


def shuffle(x: Tensor, axis: int, seed: Tensor) -> Tensor:
    gen = _generator(seed, x.device)
    perm = torch.randperm(x.shape[axis], generator=gen, device=x.device)
    return torch.index_select(x, axis, perm)


def _standard_gamma(alpha: Any, shape: tuple[int, ...], seed: Tensor) -> Tensor:
    # torch._standard_gamma takes no generator: run it on a forked, seeded global RNG.
    dev = default_device()
    devices = [dev] if dev.type == "cuda" else []
    a = torch.as_tensor(alpha, dtype=torch.float64, device=dev).expand(shape).contiguous()
    with torch.random.fork_rng(devices=devices, device_type=dev.type if devices else "cuda"):
        torch.manual_seed(_seed_int(seed))
        return torch._standard_gamma(a)


def gamma(shape: tuple[int, ...], alpha: Any, dtype: DType, seed: Tensor) -> Tensor:
    return _standard_gamma(alpha, shape, seed).to(to_torch_dtype(dtype))


def beta(shape: tuple[int, ...], alpha: Any, beta: Any, dtype: DType, seed: Tensor) -> Tensor:
    # Beta(a, b) = X / (X + Y) for X ~ Gamma(a), Y ~ Gamma(b) drawn from two derived seeds.
    x = _standard_gamma(alpha, shape, seed)
    y = _standard_gamma(beta, shape, seed.reshape(-1).flip(0) + 1)
    return (x / (x + y)).to(to_torch_dtype(dtype))


def binomial(
    shape: tuple[int, ...], counts: Any, probabilities: Any, dtype: DType, seed: Tensor
) -> Tensor:
    dev = default_device()
    n = torch.as_tensor(counts, dtype=torch.float64, device=dev).expand(shape).contiguous()
    p = torch.as_tensor(probabilities, dtype=torch.float64, device=dev).expand(shape).contiguous()
    out = torch.binomial(n, p, generator=_generator(seed, dev))
    return out.to(to_torch_dtype(dtype))
