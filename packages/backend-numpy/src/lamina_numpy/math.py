"""NumPy: special math, FFTs, segment reductions (SciPy for erf and friends)."""

from __future__ import annotations

import numpy as np

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
    import scipy.special

    return np.asarray(scipy.special.erf(x), dtype=x.dtype)


def erfc(x: Tensor) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.erfc(x), dtype=x.dtype)


def erfinv(x: Tensor) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.erfinv(x), dtype=x.dtype)


def rsqrt(x: Tensor) -> Tensor:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(1 / np.sqrt(x), dtype=x.dtype)


def logsumexp(x: Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    import scipy.special

    return np.asarray(scipy.special.logsumexp(x, axis=axis, keepdims=keepdims), dtype=x.dtype)


def logdet(x: Tensor) -> Tensor:
    return np.asarray(np.linalg.slogdet(x)[1])


def _split(z: Tensor, dtype: np.dtype) -> tuple[Tensor, Tensor]:
    return np.asarray(z.real, dtype=dtype), np.asarray(z.imag, dtype=dtype)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(np.fft.fft(real + 1j * imag), real.dtype)


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(np.fft.fft2(real + 1j * imag), real.dtype)


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(np.fft.ifft2(real + 1j * imag), real.dtype)


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(np.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return np.asarray(np.fft.irfft(real + 1j * imag, n=fft_length), dtype=real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = np.arange(n)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]
    return x[..., index]


def _center_pad(x: Tensor, fft_length: int) -> Tensor:
    pad = [(0, 0)] * (x.ndim - 1) + [(fft_length // 2, fft_length // 2)]
    return np.pad(x, pad, mode="reflect")


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    if center:
        x = _center_pad(x, fft_length)
    frames = extract_sequences(x, fft_length, sequence_stride) * window
    return rfft(frames, fft_length)


def _overlap_add(frames: Tensor, stride: int) -> Tensor:
    n, size = frames.shape[-2:]
    out = np.zeros((*frames.shape[:-2], size + stride * (n - 1)), dtype=frames.dtype)
    for i in range(n):
        out[..., i * stride : i * stride + size] += frames[..., i, :]
    return out


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
    squared = np.broadcast_to(window * window, frames.shape[-2:])
    envelope = _overlap_add(squared, sequence_stride)
    signal = signal / np.where(envelope > 1e-11, envelope, 1.0)
    start = fft_length // 2 if center else 0
    signal = signal[..., start : start + length]
    missing = length - signal.shape[-1]
    if missing > 0:
        signal = np.pad(signal, [(0, 0)] * (signal.ndim - 1) + [(0, missing)])
    return signal


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    # A stable sort of the negated values keeps the lower index first among ties.
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def in_top_k(targets: Tensor, predictions: Tensor, k: int) -> Tensor:
    target = np.take_along_axis(predictions, targets[:, None].astype(np.intp), axis=-1)
    return np.sum(predictions > target, axis=-1) < k


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


def view_as_real(x: Tensor) -> Tensor:
    return np.stack([x.real, x.imag], axis=-1)
