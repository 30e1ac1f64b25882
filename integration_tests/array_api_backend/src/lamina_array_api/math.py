"""array API: special math, FFTs (the standard's fft extension), segment reductions."""

from __future__ import annotations

import math
from typing import Any

from lamina.backend.kit import Tensor
from lamina_array_api._special import erf as erf
from lamina_array_api._special import erfc as erfc
from lamina_array_api._special import erfinv as erfinv
from lamina_array_api._xp import const, index_grid, scatter_rows, xp

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "extract_sequences",
    "fft",
    "irfft",
    "rfft",
    "segment_max",
    "segment_min",
    "segment_prod",
    "segment_sum",
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


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(xp.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return xp.astype(xp.fft.irfft(_complex_of(real, imag), n=fft_length), real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = index_grid(n)[:, None] * sequence_stride + index_grid(sequence_length)[None, :]
    out = xp.take(x, xp.reshape(index, (-1,)), axis=-1)
    return xp.reshape(out, (*x.shape[:-1], n, sequence_length))


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
