"""torch: creation ops."""

from __future__ import annotations

from typing import Any

import torch

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import default_device, to_torch_dtype


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    fill = fill_value.to(to_torch_dtype(dtype))
    return torch.broadcast_to(fill, shape).clone()


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    fill = fill_value.to(device=x.device, dtype=to_torch_dtype(dtype))
    return torch.broadcast_to(fill, x.shape).clone()


def copy(x: Tensor) -> Tensor:
    return x.clone()


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    return torch.arange(start, stop, step, dtype=to_torch_dtype(dtype), device=default_device())


def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    # torch.linspace takes scalars only; build tensor-valued ranges as start + i * step.
    start, stop = torch.broadcast_tensors(start, stop)
    div = num - 1 if endpoint else num
    delta = stop - start
    step = delta / div if div > 0 else torch.full_like(delta, float("nan"))
    i = torch.arange(num, dtype=start.dtype, device=start.device)
    i = i.reshape((num,) + (1,) * start.ndim)
    samples = start + i * (step if div > 0 else delta)
    if endpoint and num > 1:
        samples = torch.cat([samples[:-1], stop.unsqueeze(0)])
    return torch.movedim(samples, 0, axis), step


def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    sign = torch.sign(start)
    logs, _ = linspace(torch.log(torch.abs(start)), torch.log(torch.abs(stop)), num, endpoint, 0)
    samples = sign * torch.exp(logs)
    if num > 0:
        # Pin the endpoints exactly, as NumPy does.
        parts = [torch.broadcast_to(start, samples.shape[1:]).unsqueeze(0), samples[1:]]
        samples = torch.cat(parts)
        if endpoint and num > 1:
            stop_b = torch.broadcast_to(stop, samples.shape[1:]).unsqueeze(0)
            samples = torch.cat([samples[:-1], stop_b])
    return torch.movedim(samples, 0, axis)
