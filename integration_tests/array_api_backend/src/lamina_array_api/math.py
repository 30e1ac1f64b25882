"""array API: special math, FFTs (the standard's fft extension), segment reductions."""

from __future__ import annotations

import math
from typing import Any

from lamina.backend.kit import Tensor
from lamina_array_api._special import erf as erf
from lamina_array_api._special import erfc as erfc
from lamina_array_api._special import erfinv as erfinv
from lamina_array_api._xp import const, index_grid, one_hot_rows, scatter_rows, xp

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "extract_sequences",
    "fft",
    "fft2",
    "ifft2",
    "irfft",
    "istft",
    "rfft",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "stft",
    "top_k",
    "view_as_complex",
]


def _complex_of(real: Tensor, imag: Tensor) -> Tensor:
    ctype = xp.complex128 if real.dtype == xp.float64 else xp.complex64
    unit = xp.asarray(1j, dtype=ctype)
    return xp.astype(real, ctype) + xp.astype(imag, ctype) * unit


def _split(z: Tensor, dtype: Any) -> tuple[Tensor, Tensor]:
    return xp.astype(xp.real(z), dtype), xp.astype(xp.imag(z), dtype)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(xp.fft.fft(_complex_of(real, imag)), real.dtype)


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(xp.fft.fftn(_complex_of(real, imag), axes=(-2, -1)), real.dtype)


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(xp.fft.ifftn(_complex_of(real, imag), axes=(-2, -1)), real.dtype)


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(xp.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return xp.astype(xp.fft.irfft(_complex_of(real, imag), n=fft_length), real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = index_grid(n)[:, None] * sequence_stride + index_grid(sequence_length)[None, :]
    out = xp.take(x, xp.reshape(index, (-1,)), axis=-1)
    return xp.reshape(out, (*x.shape[:-1], n, sequence_length))


def _reflect_pad(x: Tensor, width: int) -> Tensor:
    """Pad the last axis by `width` on each side, mirrored without repeating the edge."""
    n = x.shape[-1]
    idx = index_grid(n + 2 * width) - width
    period = 2 * (n - 1) if n > 1 else 1
    idx = xp.remainder(idx, period)
    idx = xp.where(idx >= n, period - idx, idx)
    return xp.take(x, idx, axis=-1)


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    if center:
        x = _reflect_pad(x, fft_length // 2)
    frames = extract_sequences(x, fft_length, sequence_stride) * window
    return rfft(frames, fft_length)


def _overlap_add(frames: Tensor, stride: int) -> Tensor:
    """Sum frames ``(..., n, size)`` placed `stride` apart, as one matmul."""
    n, size = frames.shape[-2:]
    length = size + stride * (n - 1)
    where = xp.reshape(index_grid(n)[:, None] * stride + index_grid(size)[None, :], (-1,))
    place = xp.matrix_transpose(one_hot_rows(where, length, frames.dtype))
    flat = xp.reshape(frames, (*frames.shape[:-2], n * size))
    return flat @ place


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
    squared = xp.broadcast_to(window * window, frames.shape[-2:])
    envelope = _overlap_add(squared, sequence_stride)
    signal = signal / xp.where(envelope > 1e-11, envelope, xp.ones_like(envelope))
    start = fft_length // 2 if center else 0
    signal = signal[..., start : min(start + length, signal.shape[-1])]
    missing = length - signal.shape[-1]
    if missing > 0:
        zeros = xp.zeros((*signal.shape[:-1], missing), dtype=signal.dtype)
        signal = xp.concat([signal, zeros], axis=-1)
    return signal


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    # A stable descending sort keeps the lower index first among ties.
    order = xp.argsort(x, axis=-1, descending=True, stable=True)[..., :k]
    return xp.take_along_axis(x, order, axis=-1), xp.astype(order, xp.int32)


def segment_sum(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return scatter_rows(segment_ids, data, num_segments)


def _masked(data: Tensor, segment_ids: Tensor, num_segments: int, identity: float) -> Tensor:
    """``(num_segments, m, ...)``: each segment's rows, the others replaced by `identity`."""
    hits = index_grid(num_segments)[:, None] == xp.astype(segment_ids, xp.int64)[None, :]
    hits = xp.reshape(hits, (*hits.shape, *(1,) * (data.ndim - 1)))
    return xp.where(hits, data[None, ...], const(data, identity))


def _limit(data: Tensor, high: bool) -> float:
    if xp.isdtype(data.dtype, "real floating"):
        return math.inf if high else -math.inf
    info = xp.iinfo(data.dtype)
    return info.max if high else info.min


def segment_prod(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return xp.prod(_masked(data, segment_ids, num_segments, 1), axis=1, dtype=data.dtype)


def segment_max(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    low = _limit(data, high=False)
    if data.shape[0] == 0:
        return xp.full((num_segments, *data.shape[1:]), low, dtype=data.dtype)
    return xp.max(_masked(data, segment_ids, num_segments, low), axis=1)


def segment_min(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    high = _limit(data, high=True)
    if data.shape[0] == 0:
        return xp.full((num_segments, *data.shape[1:]), high, dtype=data.dtype)
    return xp.min(_masked(data, segment_ids, num_segments, high), axis=1)


def view_as_complex(x: Tensor) -> Tensor:
    return _complex_of(x[..., 0], x[..., 1])
