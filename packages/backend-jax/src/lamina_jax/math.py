"""jax: special math, FFTs, segment reductions."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special

from lamina.backend.kit import Tensor

erf = jax.scipy.special.erf
erfc = jax.scipy.special.erfc
erfinv = jax.scipy.special.erfinv


def _split(z: Tensor, dtype: Tensor) -> tuple[Tensor, Tensor]:
    return jnp.real(z).astype(dtype), jnp.imag(z).astype(dtype)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.fft(jax.lax.complex(real, imag)), real.dtype)


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(jnp.fft.rfft(x, n=fft_length), x.dtype)


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return jnp.fft.irfft(jax.lax.complex(real, imag), n=fft_length).astype(real.dtype)


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    n = max(0, 1 + (x.shape[-1] - sequence_length) // sequence_stride)
    index = jnp.arange(n)[:, None] * sequence_stride + jnp.arange(sequence_length)[None, :]
    return x[..., index]


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = jax.lax.top_k(x, k)
    return values, indices


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
