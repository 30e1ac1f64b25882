"""tensorflow: special math, FFTs, segment reductions."""

from __future__ import annotations

import tensorflow as tf

from lamina.backend.kit import Tensor

erf = tf.math.erf
erfc = tf.math.erfc
erfinv = tf.math.erfinv


def _split(z: Tensor) -> tuple[Tensor, Tensor]:
    return tf.math.real(z), tf.math.imag(z)


def fft(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.fft(tf.complex(real, imag)))


def rfft(x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]:
    return _split(tf.signal.rfft(x, fft_length=[fft_length]))


def irfft(real: Tensor, imag: Tensor, fft_length: int) -> Tensor:
    return tf.signal.irfft(tf.complex(real, imag), fft_length=[fft_length])


def extract_sequences(x: Tensor, sequence_length: int, sequence_stride: int) -> Tensor:
    return tf.signal.frame(x, sequence_length, sequence_stride, pad_end=False, axis=-1)


def top_k(x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]:
    values, indices = tf.math.top_k(x, k, sorted=sorted)
    return values, indices


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
