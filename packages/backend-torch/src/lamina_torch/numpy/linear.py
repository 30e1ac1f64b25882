"""torch: products and contractions."""

from __future__ import annotations

import torch

from lamina.backend.kit import Tensor, correlation_window


def matmul(x1: Tensor, x2: Tensor) -> Tensor:
    return torch.matmul(x1, x2)


def cross(x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor:
    # torch.linalg.cross takes only 3-vectors, so 2-vectors are spelled out.
    a = torch.movedim(x1, axisa, -1)
    b = torch.movedim(x2, axisb, -1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if a.shape[-1] == 2:
        a = torch.nn.functional.pad(a, (0, 1))
    if b.shape[-1] == 2:
        b = torch.nn.functional.pad(b, (0, 1))
    a, b = torch.broadcast_tensors(a, b)
    return torch.movedim(torch.linalg.cross(a, b, dim=-1), -1, axisc)


def correlate(x1: Tensor, x2: Tensor, mode: str) -> Tensor:
    n, m = x1.shape[0], x2.shape[0]
    padded = torch.nn.functional.pad(x1, (m - 1, m - 1))
    full = torch.nn.functional.conv1d(padded[None, None], x2[None, None])[0, 0]
    return full[correlation_window(n, m, mode)]


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return torch.tensordot(x1, x2, dims=(list(axes[0]), list(axes[1])))


def dot(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.ndim == 0 or x2.ndim == 0:
        return x1 * x2
    return tensordot(x1, x2, ((x1.ndim - 1,), (max(x2.ndim - 2, 0),)))


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    return torch.einsum(subscripts, *operands)
