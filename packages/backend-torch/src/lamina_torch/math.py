"""torch: special math, FFTs, segment reductions."""

from __future__ import annotations

import torch

from lamina.backend.kit import Tensor

erf = torch.special.erf
erfc = torch.special.erfc
erfinv = torch.special.erfinv


def _split(z: Tensor) -> tuple[Tensor, Tensor]:
    return torch.real(z).contiguous(), torch.imag(z).contiguous()


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.fft(torch.complex(real, imag)))


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.rfft(x, n=fft_length))


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return torch.fft.irfft(torch.complex(real, imag), n=fft_length)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    if x.shape[-1] < sequence_length:
        return x.new_zeros((*x.shape[:-1], 0, sequence_length))
    return x.unfold(-1, sequence_length, sequence_stride)


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = torch.topk(x, k, dim=-1, largest=True, sorted=sorted)
    return values, indices


def _segment(data: Tensor, ids: Tensor, n: int, reduce: str, identity: float | int) -> Tensor:
    keep = (ids >= 0) & (ids < n)
    data, ids = data[keep], ids[keep].long()
    out = torch.full((n, *data.shape[1:]), identity, dtype=data.dtype, device=data.device)
    index = ids.reshape(-1, *([1] * (data.ndim - 1))).expand_as(data)
    return out.scatter_reduce(0, index, data, reduce=reduce, include_self=True)


def _lowest(dtype: torch.dtype) -> float | int:
    return -float("inf") if dtype.is_floating_point else torch.iinfo(dtype).min


def _highest(dtype: torch.dtype) -> float | int:
    return float("inf") if dtype.is_floating_point else torch.iinfo(dtype).max


def segment_sum(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, "sum", 0)


def segment_prod(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, "prod", 1)


def segment_max(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, "amax", _lowest(data.dtype))


def segment_min(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, "amin", _highest(data.dtype))


def view_as_complex(x: Tensor) -> Tensor:
    return torch.complex(x[..., 0], x[..., 1])
