"""NumPy: special math, FFTs, segment reductions (SciPy for erf and friends)."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import Tensor


def erf(x: Tensor) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.erf(x), dtype=x.dtype)


def erfc(x: Tensor) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.erfc(x), dtype=x.dtype)


def erfinv(x: Tensor) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.erfinv(x), dtype=x.dtype)


def _split(z: Tensor, dtype: np.dtype) -> tuple[Tensor, Tensor]:
    return np.asarray(z.real, dtype=dtype), np.asarray(z.imag, dtype=dtype)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(np.fft.fft(real + 1j * imag), real.dtype)


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(np.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return np.asarray(np.fft.irfft(real + 1j * imag, n=fft_length), dtype=real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = np.arange(n)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]
    return x[..., index]


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    # A stable sort of the negated values keeps the lower index first among ties.
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def _segment(data: Tensor, ids: Tensor, n: int, ufunc: np.ufunc, identity: float | int) -> Tensor:
    out = np.full((n, *data.shape[1:]), identity, dtype=data.dtype)
    keep = (ids >= 0) & (ids < n)
    ufunc.at(out, ids[keep], data[keep])
    return out


def _lowest(dtype: np.dtype) -> float | int:
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _highest(dtype: np.dtype) -> float | int:
    return np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def segment_sum(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, np.add, 0)


def segment_prod(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, np.multiply, 1)


def segment_max(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, np.maximum, _lowest(data.dtype))


def segment_min(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return _segment(data, segment_ids, num_segments, np.minimum, _highest(data.dtype))


def view_as_complex(x: Tensor) -> Tensor:
    dtype = np.complex128 if x.dtype == np.float64 else np.complex64
    return (x[..., 0] + 1j * x[..., 1]).astype(dtype)
