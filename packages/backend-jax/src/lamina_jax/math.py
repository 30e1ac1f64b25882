"""jax: special math, FFTs, segment reductions."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special

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
    return jax.scipy.special.erf(x)


def erfc(x: Tensor) -> Tensor:
    return jax.scipy.special.erfc(x)


def erfinv(x: Tensor) -> Tensor:
    return jax.scipy.special.erfinv(x)


def rsqrt(x: Tensor) -> Tensor:
    return jax.lax.rsqrt(x)


def logsumexp(x: Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    return jax.nn.logsumexp(x, axis=axis, keepdims=keepdims)


def logdet(x: Tensor) -> Tensor:
    return jnp.linalg.slogdet(x)[1]


def _split(z: Tensor, dtype: Tensor) -> tuple[Tensor, Tensor]:
    return jnp.real(z).astype(dtype), jnp.imag(z).astype(dtype)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.fft(jax.lax.complex(real, imag)), real.dtype)


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.fft2(jax.lax.complex(real, imag)), real.dtype)


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.ifft2(jax.lax.complex(real, imag)), real.dtype)


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return jnp.fft.irfft(jax.lax.complex(real, imag), n=fft_length).astype(real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = jnp.arange(n)[:, None] * sequence_stride + jnp.arange(sequence_length)[None, :]
    return x[..., index]


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(fft_length // 2, fft_length // 2)]
        x = jnp.pad(x, pad, mode="reflect")
    frames = extract_sequences(x, fft_length, sequence_stride) * window
    return rfft(frames, fft_length)


def _overlap_add(frames: Tensor, stride: int) -> Tensor:
    n, size = frames.shape[-2:]
    index = (jnp.arange(n)[:, None] * stride + jnp.arange(size)[None, :]).reshape(-1)
    out = jnp.zeros((*frames.shape[:-2], size + stride * (n - 1)), frames.dtype)
    return out.at[..., index].add(frames.reshape(*frames.shape[:-2], -1))


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
    envelope = _overlap_add(jnp.broadcast_to(window * window, frames.shape[-2:]), sequence_stride)
    signal = signal / jnp.where(envelope > 1e-11, envelope, 1.0)
    start = fft_length // 2 if center else 0
    signal = signal[..., start : start + length]
    missing = length - signal.shape[-1]
    if missing > 0:
        signal = jnp.pad(signal, [(0, 0)] * (signal.ndim - 1) + [(0, missing)])
    return signal


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = jax.lax.top_k(x, k)
    return values, indices


def in_top_k(targets: Tensor, predictions: Tensor, k: int) -> Tensor:
    target = jnp.take_along_axis(predictions, targets[:, None], axis=-1)
    return jnp.sum(predictions > target, axis=-1) < k


def segment_sum(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return jax.ops.segment_sum(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_prod(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return jax.ops.segment_prod(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_max(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return jax.ops.segment_max(data, segment_ids, num_segments, indices_are_sorted=sorted)


def segment_min(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return jax.ops.segment_min(data, segment_ids, num_segments, indices_are_sorted=sorted)


def view_as_complex(x: Tensor) -> Tensor:
    return jax.lax.complex(x[..., 0], x[..., 1])


def view_as_real(x: Tensor) -> Tensor:
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)
