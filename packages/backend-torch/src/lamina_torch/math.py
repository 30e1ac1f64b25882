"""torch: special math, FFTs, segment reductions."""

from __future__ import annotations

import torch

from lamina.backend.kit import Tensor

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "extract_sequences",
    "fft",
    "fft2",
    "ifft2",
    "in_top_k",
    "irfft",
    "istft",
    "logdet",
    "logsumexp",
    "rfft",
    "rsqrt",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "stft",
    "top_k",
    "view_as_complex",
    "view_as_real",
]


def erf(x: Tensor) -> Tensor:
    return torch.special.erf(x)


def erfc(x: Tensor) -> Tensor:
    return torch.special.erfc(x)


def erfinv(x: Tensor) -> Tensor:
    return torch.special.erfinv(x)


def rsqrt(x: Tensor) -> Tensor:
    return torch.rsqrt(x)


def logsumexp(x: Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    # torch.logsumexp needs explicit dims; None means all of them.
    dims = tuple(range(x.ndim)) if axis is None else axis
    return torch.logsumexp(x, dim=dims, keepdim=keepdims)


def logdet(x: Tensor) -> Tensor:
    return torch.linalg.slogdet(x)[1]


def _split(z: Tensor) -> tuple[Tensor, Tensor]:
    return torch.real(z).contiguous(), torch.imag(z).contiguous()


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.fft(torch.complex(real, imag)))


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.fft2(torch.complex(real, imag)))


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.ifft2(torch.complex(real, imag)))


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(torch.fft.rfft(x, n=fft_length))


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return torch.fft.irfft(torch.complex(real, imag), n=fft_length)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    if x.shape[-1] < sequence_length:
        return x.new_zeros((*x.shape[:-1], 0, sequence_length))
    return x.unfold(-1, sequence_length, sequence_stride)


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    if center:
        # Reflection padding takes a (batch, channels, length) input.
        flat = x.reshape(-1, 1, x.shape[-1])
        pad = (fft_length // 2, fft_length // 2)
        x = torch.nn.functional.pad(flat, pad, mode="reflect").reshape(*x.shape[:-1], -1)
    frames = extract_sequences(x, fft_length, sequence_stride) * window
    return rfft(frames, fft_length)


def _overlap_add(frames: Tensor, stride: int) -> Tensor:
    n, size = frames.shape[-2:]
    index = torch.arange(n)[:, None] * stride + torch.arange(size)[None, :]
    out = frames.new_zeros((*frames.shape[:-2], size + stride * (n - 1)))
    return out.index_add(-1, index.reshape(-1).to(frames.device), frames.flatten(-2))


def istft(
    real: Tensor,
    imag: Tensor,
    sequence_stride: int,
    fft_length: int,
    window: Tensor,
    center: bool,
    length: int,
) -> Tensor:
    frames = irfft(real, imag, fft_length) * window
    signal = _overlap_add(frames, sequence_stride)
    envelope = _overlap_add((window * window).expand(frames.shape[-2:]), sequence_stride)
    signal = signal / torch.where(envelope > 1e-11, envelope, torch.ones_like(envelope))
    start = fft_length // 2 if center else 0
    signal = signal[..., start : start + length]
    missing = length - signal.shape[-1]
    if missing > 0:
        signal = torch.nn.functional.pad(signal, (0, missing))
    return signal


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = torch.topk(x, k, dim=-1, largest=True, sorted=sorted)
    return values, indices


def in_top_k(targets: Tensor, predictions: Tensor, k: int) -> Tensor:
    target = torch.gather(predictions, -1, targets[:, None].long())
    return torch.sum(predictions > target, dim=-1) < k


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


def view_as_real(x: Tensor) -> Tensor:
    return torch.view_as_real(x.resolve_conj()).clone()
