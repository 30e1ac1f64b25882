"""tensorflow: special math, FFTs, segment reductions."""

from __future__ import annotations

import tensorflow as tf

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
    return tf.math.erf(x)


def erfc(x: Tensor) -> Tensor:
    return tf.math.erfc(x)


def erfinv(x: Tensor) -> Tensor:
    return tf.math.erfinv(x)


def rsqrt(x: Tensor) -> Tensor:
    return tf.math.rsqrt(x)


def logsumexp(x: Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    return tf.reduce_logsumexp(x, axis=None if axis is None else list(axis), keepdims=keepdims)


def logdet(x: Tensor) -> Tensor:
    # tf.linalg.logdet goes through Cholesky; slogdet gives the same for positive-definite x.
    return tf.linalg.slogdet(x)[1]


def _split(z: Tensor) -> tuple[Tensor, Tensor]:
    return tf.math.real(z), tf.math.imag(z)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.fft(tf.complex(real, imag)))


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.fft2d(tf.complex(real, imag)))


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.ifft2d(tf.complex(real, imag)))


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.rfft(x, fft_length=[fft_length]))


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return tf.signal.irfft(tf.complex(real, imag), fft_length=[fft_length])


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    return tf.signal.frame(x, sequence_length, sequence_stride, pad_end=False, axis=-1)


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    if center:
        pad = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = tf.pad(x, pad, mode="REFLECT")
    frames = extract_sequences(x, fft_length, sequence_stride) * window
    return rfft(frames, fft_length)


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
    signal = tf.signal.overlap_and_add(frames, sequence_stride)
    squared = tf.broadcast_to(window * window, tf.shape(frames)[-2:])
    envelope = tf.signal.overlap_and_add(squared, sequence_stride)
    signal = signal / tf.where(envelope > 1e-11, envelope, tf.ones_like(envelope))
    start = fft_length // 2 if center else 0
    signal = signal[..., start : start + length]
    missing = length - signal.shape[-1]
    if missing > 0:
        signal = tf.pad(signal, [[0, 0]] * (signal.shape.rank - 1) + [[0, missing]])
    return signal


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = tf.math.top_k(x, k, sorted=sorted)
    return values, indices


def in_top_k(targets: Tensor, predictions: Tensor, k: int) -> Tensor:
    # tf.math.in_top_k returns False for non-finite rows; the count keeps one rule everywhere.
    target = tf.gather(predictions, targets, axis=1, batch_dims=1)[:, None]
    return tf.reduce_sum(tf.cast(predictions > target, tf.int32), axis=-1) < k


def _fill_empty(out: Tensor, ids: Tensor, n: int, value: float) -> Tensor:
    """unsorted_segment_max/min fill empty segments with the dtype's finite extreme."""
    if not out.dtype.is_floating:
        return out
    counts = tf.math.unsorted_segment_sum(tf.ones_like(ids), ids, n)
    counts = tf.reshape(counts, [n] + [1] * (out.shape.rank - 1))
    return tf.where(counts > 0, out, tf.cast(value, out.dtype))


def _drop_out_of_range(ids: Tensor, n: int) -> Tensor:
    """Negative ids are dropped by TF, ids >= n fail on CPU: send those to -1 as well."""
    return tf.where(ids < n, ids, -tf.ones_like(ids))


def segment_sum(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return tf.math.unsorted_segment_sum(
        data, _drop_out_of_range(segment_ids, num_segments), num_segments
    )


def segment_prod(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    return tf.math.unsorted_segment_prod(
        data, _drop_out_of_range(segment_ids, num_segments), num_segments
    )


def segment_max(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    ids = _drop_out_of_range(segment_ids, num_segments)
    out = tf.math.unsorted_segment_max(data, ids, num_segments)
    return _fill_empty(out, ids, num_segments, -float("inf"))


def segment_min(data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool) -> Tensor:
    ids = _drop_out_of_range(segment_ids, num_segments)
    out = tf.math.unsorted_segment_min(data, ids, num_segments)
    return _fill_empty(out, ids, num_segments, float("inf"))


def view_as_complex(x: Tensor) -> Tensor:
    return tf.complex(x[..., 0], x[..., 1])


def view_as_real(x: Tensor) -> Tensor:
    return tf.stack([tf.math.real(x), tf.math.imag(x)], axis=-1)
