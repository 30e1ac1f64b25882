"""torch: shape ops."""

from __future__ import annotations

import torch

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import to_torch_dtype

# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
reshape = torch.reshape
broadcast_to = torch.broadcast_to


def expand_dims(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    # torch.unsqueeze takes one dim at a time; sorted axes keep later positions valid.
    for a in axes:
        x = torch.unsqueeze(x, a)
    return x


def squeeze(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return torch.squeeze(x, axes) if axes else x


transpose = torch.permute


def flip(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return torch.flip(x, axes) if axes else x


roll = torch.roll
tile = torch.tile


def repeat(x: Tensor, repeats: int | tuple[int, ...], axis: int) -> Tensor:
    if isinstance(repeats, tuple):
        counts = torch.tensor(repeats, dtype=torch.int64, device=x.device)
        return torch.repeat_interleave(x, counts, dim=axis)
    return torch.repeat_interleave(x, repeats, dim=axis)


concatenate = torch.cat
stack = torch.stack


def split(x: Tensor, indices: tuple[int, ...], axis: int) -> list[Tensor]:
    return list(torch.tensor_split(x, list(indices), dim=axis))


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    return x[key]


def _wrap(indices: Tensor, n: int) -> Tensor:
    """`indices` with negative ones counted from the end, as NumPy does: torch's gathers
    reject them. On a CPU, reading the least index costs less than rewriting them all; a
    GPU would stall on that read, and torch.compile cannot trace it."""
    on_cpu = indices.device.type == "cpu" and not torch.compiler.is_compiling()
    if on_cpu and (indices.numel() == 0 or indices.min().item() >= 0):
        return indices
    return torch.where(indices < 0, indices + n, indices)


def take(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    indices = _wrap(indices, x.shape[axis])
    if axis == 0 and x.ndim == 2:
        return torch.nn.functional.embedding(indices, x)  # one kernel, either index dtype
    # index_select wants a 1-D index; gather flat, then restore the index's shape.
    out = torch.index_select(x, axis, indices.reshape(-1))
    return out.reshape(x.shape[:axis] + indices.shape + x.shape[axis + 1 :])


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    return torch.gather(x, axis, _wrap(indices, x.shape[axis]).to(torch.int64))


where = torch.where


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    return tuple(torch.nonzero(x, as_tuple=True))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    return tuple(torch.unravel_index(indices.to(torch.int64), shape))


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    # F.pad lacks bool and some int kernels; fill a new tensor and copy `x` into it.
    shape = tuple(d + a + b for d, (a, b) in zip(x.shape, pad_width, strict=True))
    out = value.to(device=x.device, dtype=x.dtype).expand(shape).clone()
    inner = tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pad_width, strict=True))
    out[inner] = x
    return out


diag = torch.diag
diagonal = torch.diagonal


def view(x: Tensor, dtype: DType) -> Tensor:
    return x.contiguous().view(to_torch_dtype(dtype))
