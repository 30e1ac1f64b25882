"""`math` composites: special functions built on the primitives."""

from __future__ import annotations

from lamina.ops.composites._base import Tensor, backend, const, dtype_of
from lamina.ops.dtypes import COMPLEXES


def rsqrt(x: Tensor) -> Tensor:
    n = backend().numpy
    return n.divide(const(x, 1), n.sqrt(x))


def logsumexp(x: Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    b = backend()
    n = b.numpy
    top = b.control_flow.stop_gradient(n.max(x, axis, True))
    # An infinite maximum (all -inf, or a +inf) would give inf - inf: shift by 0 there.
    top = n.where(n.isfinite(top), top, const(top, 0))
    out = n.log(n.sum(n.exp(x - top), axis, True)) + top
    if keepdims:
        return out
    return n.squeeze(out, tuple(range(len(b.core.shape(x)))) if axis is None else axis)


def logdet(x: Tensor) -> Tensor:
    return backend().linalg.slogdet(x)[1]


def in_top_k(targets: Tensor, predictions: Tensor, k: int) -> Tensor:
    b = backend()
    n = b.numpy
    target = n.take_along_axis(predictions, b.core.cast(targets, "int32")[:, None], 1)
    above = n.sum(b.core.cast(n.greater(predictions, target), "int32"), (1,), False)
    return n.less(above, const(above, k))


def cholesky_inverse(x: Tensor, upper: bool) -> Tensor:
    b = backend()
    n = b.numpy
    rank = len(b.core.shape(x))
    swap = (*range(rank - 2), rank - 1, rank - 2)
    adjoint = n.transpose(x, swap)
    if dtype_of(x) in COMPLEXES:
        adjoint = n.conjugate(adjoint)
    a = n.matmul(adjoint, x) if upper else n.matmul(x, adjoint)
    return b.linalg.inv(a)


def view_as_real(x: Tensor) -> Tensor:
    n = backend().numpy
    return n.stack([n.real(x), n.imag(x)], len(backend().core.shape(x)))


def matrix_rank(x: Tensor, tol: float | None) -> Tensor:
    import numpy as np

    b = backend()
    n = b.numpy
    s = b.linalg.svd(x, False, False)
    if tol is None:
        rows, cols = b.core.shape(x)[-2:]
        eps = float(np.finfo(dtype_of(s)).eps)
        cutoff = n.max(s, (len(b.core.shape(s)) - 1,), True) * const(s, max(rows, cols) * eps)
    else:
        cutoff = const(s, tol)
    kept = b.core.cast(n.greater(s, cutoff), "int32")
    return n.sum(kept, (len(b.core.shape(s)) - 1,), False)


def _swap_last(x: Tensor) -> Tensor:
    rank = len(backend().core.shape(x))
    return backend().numpy.transpose(x, (*range(rank - 2), rank - 1, rank - 2))


def fft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    """The 2-D FFT over the last two axes: a 1-D FFT along each in turn."""
    fft = backend().math.fft
    real, imag = fft(real, imag)
    real, imag = fft(_swap_last(real), _swap_last(imag))
    return _swap_last(real), _swap_last(imag)


def ifft2(real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]:
    """The inverse 2-D FFT: ``conj(fft2(conj(z))) / size``."""
    rows, cols = backend().core.shape(real)[-2:]
    out_real, out_imag = fft2(real, -imag)
    scale = const(real, 1 / (rows * cols))
    return out_real * scale, -out_imag * scale


def stft(
    x: Tensor, sequence_stride: int, fft_length: int, window: Tensor, center: bool
) -> tuple[Tensor, Tensor]:
    """Windowed frames of real `x` (reflect-padded by half a frame when `center`), rfft'd."""
    b = backend()
    if center:
        rank, half = len(b.core.shape(x)), fft_length // 2
        x = b.image.pad(x, ((0, 0),) * (rank - 1) + ((half, half),), "reflect", 0.0)
    frames = b.math.extract_sequences(x, fft_length, sequence_stride) * window
    return b.math.rfft(frames, fft_length)


def _overlap_add(frames: Tensor, stride: int) -> Tensor:
    """Sum frames ``(..., n, size)`` placed `stride` apart: ``(..., size + stride*(n-1))``."""
    import numpy as np

    b = backend()
    n = b.numpy
    shape = tuple(b.core.shape(frames))
    count, size = shape[-2:]
    rank = len(shape)
    # Scatter-add along a leading axis: frames (count * size, ...) summed into (total, ...).
    values = n.reshape(
        n.transpose(frames, (rank - 2, rank - 1, *range(rank - 2))), (-1, *shape[:-2])
    )
    index = (np.arange(count)[:, None] * stride + np.arange(size)[None, :]).reshape(-1, 1)
    total = size + stride * (count - 1)
    summed = b.control_flow.scatter(
        b.core.convert_to_tensor(index.astype(np.int32), "int32"), values, (total, *shape[:-2])
    )
    return n.transpose(summed, (*range(1, rank - 1), 0))


def istft(
    real: Tensor,
    imag: Tensor,
    sequence_stride: int,
    fft_length: int,
    window: Tensor,
    center: bool,
    length: int,
) -> Tensor:
    """Overlap-add of the windowed inverse frames, divided by the summed squared window."""
    b = backend()
    n = b.numpy
    frames = b.math.irfft(real, imag, fft_length) * window
    signal = _overlap_add(frames, sequence_stride)
    squared = n.broadcast_to(window * window, tuple(b.core.shape(frames))[-2:])
    envelope = _overlap_add(squared, sequence_stride)
    safe = n.where(envelope > const(envelope, 1e-11), envelope, const(envelope, 1.0))
    signal = n.divide(signal, safe)
    start = fft_length // 2 if center else 0
    signal = signal[..., start : start + length]
    shape = tuple(b.core.shape(signal))
    missing = length - shape[-1]
    if missing > 0:
        pads = ((0, 0),) * (len(shape) - 1) + ((0, missing),)
        signal = n.pad(signal, pads, const(signal, 0))
    return signal
