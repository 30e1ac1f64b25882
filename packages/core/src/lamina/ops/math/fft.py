"""FFTs on (real, imag) pairs, short-time Fourier transforms and framing."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.linalg._common import compute_dtype, float_dtype, restore
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor, is_symbolic

__all__ = ["extract_sequences", "fft", "fft2", "ifft2", "irfft", "istft", "rfft", "stft"]


def _positive_int(op: str, value: Any, arg: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(
            f"`{op}`: argument `{arg}` must be a positive int. Received: {arg}={value!r}"
        )
    return int(value)


def _pair(op: str, x: Any, min_rank: int) -> tuple[Shape, str]:
    """Check that `x` is a (real, imag) pair of one shape; return the shape and float dtype."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"`{op}`: argument `x` must be a tuple (real, imag) of two tensors. "
            f"Received: x={type(x).__name__}"
        )
    real, imag = x
    sr, si = static_shape(real), static_shape(imag)
    if len(sr) != len(si) or any(
        a is not None and b is not None and a != b for a, b in zip(sr, si, strict=True)
    ):
        raise ValueError(
            f"`{op}`: the real and imaginary parts must have the same shape. "
            f"Received: real.shape={sr}, imag.shape={si}"
        )
    if len(sr) < min_rank:
        raise ValueError(
            f"`{op}`: the input must have rank >= {min_rank}. Received: real.shape={sr}"
        )
    try:
        dtype = dtypes.result_type(float_dtype(op, real, "x"), float_dtype(op, imag, "x"))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None
    if dtype in dtypes.COMPLEXES:
        raise TypeError(f"`{op}`: the real and imaginary parts must be real. Received: {dtype}")
    shape = tuple(a if a is not None else b for a, b in zip(sr, si, strict=True))
    return shape, dtype


def _real(op: str, x: Any) -> tuple[Shape, str]:
    shape = static_shape(x)
    dtype = float_dtype(op, x)
    if dtype in dtypes.COMPLEXES:
        raise TypeError(f"`{op}`: argument `x` must be real. Received: x.dtype={dtype}")
    return shape, dtype


class _ComplexFFT(Op):
    """fft, fft2 and ifft2: a (real, imag) pair in, a pair of the same shape out."""

    rank = 1

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape, dtype = _pair(self.op_name, x, self.rank)
        return SymbolicTensor(shape, dtype), SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        _, dtype = _pair(self.op_name, x, self.rank)
        real, imag = (to_tensor(t, compute_dtype(dtype)) for t in x)
        out_r, out_i = self.compute(real, imag)
        return restore(out_r, dtype), restore(out_i, dtype)

    def compute(self, real: Any, imag: Any) -> tuple[Any, Any]:
        raise NotImplementedError


class Fft(_ComplexFFT):
    def compute(self, real: Any, imag: Any) -> tuple[Any, Any]:
        return backend().math.fft(real, imag)


class Fft2(_ComplexFFT):
    rank = 2

    def compute(self, real: Any, imag: Any) -> tuple[Any, Any]:
        return composite("math", "fft2")(real, imag)


class Ifft2(_ComplexFFT):
    rank = 2

    def compute(self, real: Any, imag: Any) -> tuple[Any, Any]:
        return composite("math", "ifft2")(real, imag)


def fft(x: Any) -> Any:
    """Discrete Fourier transform along the last axis.

    Args:
        x: a tuple ``(real, imag)`` of float tensors of one shape.

    Returns:
        A tuple ``(real, imag)`` of the transform.

    Example:
        >>> lamina.ops.fft((np.ones(4), np.zeros(4)))  # ([4, 0, 0, 0], [0, 0, 0, 0])
    """
    return Fft()(x)


def fft2(x: Any) -> Any:
    """2-D discrete Fourier transform over the last two axes of a ``(real, imag)`` pair.

    Example:
        >>> lamina.ops.fft2((np.ones((2, 2)), np.zeros((2, 2))))  # real [[4, 0], [0, 0]]
    """
    return Fft2()(x)


def ifft2(x: Any) -> Any:
    """Inverse 2-D discrete Fourier transform over the last two axes of a ``(real, imag)`` pair.

    Example:
        >>> x = np.arange(4.0).reshape(2, 2)
        >>> lamina.ops.ifft2(lamina.ops.fft2((x, np.zeros_like(x))))  # (x, 0)
    """
    return Ifft2()(x)


class Rfft(Op):
    def __init__(self, fft_length: int | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.fft_length = _positive_int("rfft", fft_length, "fft_length", allow_none=True)

    def plan(self, x: Any) -> tuple[Shape, str, int | None]:
        shape, dtype = _real(self.op_name, x)
        if not shape:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received: ()")
        n = self.fft_length if self.fft_length is not None else shape[-1]
        return (*shape[:-1], None if n is None else n // 2 + 1), dtype, n

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape, dtype, _ = self.plan(x)
        return SymbolicTensor(shape, dtype), SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        _, dtype, n = self.plan(x)
        assert n is not None
        real, imag = backend().math.rfft(to_tensor(x, compute_dtype(dtype)), n)
        return restore(real, dtype), restore(imag, dtype)


def rfft(x: Any, fft_length: int | None = None) -> Any:
    """Fourier transform of a real signal along the last axis (non-negative frequencies).

    Args:
        x: real tensor.
        fft_length: transform length (the signal is cropped or zero-padded to it); None
            means ``x.shape[-1]``.

    Returns:
        A tuple ``(real, imag)`` with last dim ``fft_length // 2 + 1``.

    Example:
        >>> lamina.ops.rfft(np.ones(4))  # ([4, 0, 0], [0, 0, 0])
    """
    return Rfft(fft_length)(x)


class Irfft(Op):
    def __init__(self, fft_length: int | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self.fft_length = _positive_int("irfft", fft_length, "fft_length", allow_none=True)

    def plan(self, x: Any) -> tuple[Shape, str, int | None]:
        shape, dtype = _pair(self.op_name, x, 1)
        m = shape[-1]
        n = self.fft_length if self.fft_length is not None else (None if m is None else 2 * (m - 1))
        if n is not None and n < 1:
            raise ValueError(
                f"`{self.op_name}`: the output length must be positive; pass `fft_length`. "
                f"Received: x shape {shape}"
            )
        return (*shape[:-1], n), dtype, n

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape, dtype, _ = self.plan(x)
        return SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        _, dtype, n = self.plan(x)
        assert n is not None
        real, imag = (to_tensor(t, compute_dtype(dtype)) for t in x)
        return restore(backend().math.irfft(real, imag, n), dtype)


def irfft(x: Any, fft_length: int | None = None) -> Any:
    """Inverse of `rfft`: a real signal from its non-negative frequencies.

    Args:
        x: a tuple ``(real, imag)``.
        fft_length: output length; None means ``2 * (x[0].shape[-1] - 1)``.

    Example:
        >>> lamina.ops.irfft(lamina.ops.rfft(np.arange(4.0)))  # [0., 1., 2., 3.]
    """
    return Irfft(fft_length)(x)


def _frames(length: int | None, size: int, stride: int) -> int | None:
    if length is None:
        return None
    return max(0, 1 + (length - size) // stride) if length >= size else 0


class ExtractSequences(Op):
    def __init__(self, sequence_length: int, sequence_stride: int, name: str | None = None):
        super().__init__(name=name)
        self.sequence_length = _positive_int(
            "extract_sequences", sequence_length, "sequence_length"
        )
        self.sequence_stride = _positive_int(
            "extract_sequences", sequence_stride, "sequence_stride"
        )

    def shape(self, x: Any) -> Shape:
        shape = static_shape(x)
        if not shape:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received: ()")
        assert self.sequence_length is not None and self.sequence_stride is not None
        n = _frames(shape[-1], self.sequence_length, self.sequence_stride)
        return (*shape[:-1], n, self.sequence_length)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self.shape(x), dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        self.shape(x)
        assert self.sequence_length is not None and self.sequence_stride is not None
        return backend().math.extract_sequences(
            to_tensor(x), self.sequence_length, self.sequence_stride
        )


def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> Any:
    """Frames of `sequence_length` samples every `sequence_stride` along the last axis.

    Returns:
        Shape ``(..., num_sequences, sequence_length)``, with
        ``num_sequences = 1 + (x.shape[-1] - sequence_length) // sequence_stride``.

    Example:
        >>> lamina.ops.extract_sequences(np.arange(6.0), 3, 2)  # [[0, 1, 2], [2, 3, 4]]
    """
    return ExtractSequences(sequence_length, sequence_stride)(x)


class _ShortTime(Op):
    """What stft and istft share: sizes and the window (padded to `fft_length`)."""

    def __init__(
        self,
        sequence_length: int,
        sequence_stride: int,
        fft_length: int,
        window: Any = "hann",
        center: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        op = self.op_name
        self.sequence_length = int(_positive_int(op, sequence_length, "sequence_length") or 0)
        self.sequence_stride = int(_positive_int(op, sequence_stride, "sequence_stride") or 0)
        self.fft_length = int(_positive_int(op, fft_length, "fft_length") or 0)
        if self.sequence_length > self.fft_length:
            raise ValueError(
                f"`{op}`: `sequence_length` must be at most `fft_length`. Received: "
                f"sequence_length={sequence_length}, fft_length={fft_length}"
            )
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(
                f"`{op}`: argument `window` must be 'hann', 'hamming', None or a tensor. "
                f"Received: window={window!r}"
            )
        if not isinstance(window, str) and window is not None:
            if is_symbolic(window):
                raise ValueError(f"`{op}`: argument `window` must have a value, not be symbolic.")
            shape = static_shape(window)
            if shape != (self.sequence_length,):
                raise ValueError(
                    f"`{op}`: argument `window` must have shape (sequence_length,). "
                    f"Received: window.shape={shape}, sequence_length={sequence_length}"
                )
        self.window = window
        self.center = bool(center)

    def window_tensor(self, dtype: str) -> Any:
        n = self.sequence_length
        if self.window is None:
            win = np.ones(n)
        elif isinstance(self.window, str):
            # Periodic windows, the convention of spectral analysis (and of scipy's get_window).
            a = 0.5 if self.window == "hann" else 0.54
            win = a - (1 - a) * np.cos(2 * np.pi * np.arange(n) / n)
        else:
            from lamina.ops.core.conversion import convert_to_numpy

            win = np.asarray(convert_to_numpy(self.window), dtype="float64")
        left = (self.fft_length - n) // 2
        win = np.pad(win, (left, self.fft_length - n - left))
        return to_tensor(win.astype(dtypes.to_numpy_dtype(dtype)), dtype)


class Stft(_ShortTime):
    def plan(self, x: Any) -> tuple[Shape, str]:
        shape, dtype = _real(self.op_name, x)
        if not shape:
            raise ValueError(f"`{self.op_name}`: argument `x` must have rank >= 1. Received: ()")
        length = shape[-1]
        if self.center and length is not None:
            if length <= self.fft_length // 2:
                raise ValueError(
                    f"`{self.op_name}`: with `center=True` the signal must be longer than "
                    f"fft_length // 2 for reflection padding. Received: x.shape={shape}, "
                    f"fft_length={self.fft_length}"
                )
            length += 2 * (self.fft_length // 2)
        n = _frames(length, self.fft_length, self.sequence_stride)
        return (*shape[:-1], n, self.fft_length // 2 + 1), dtype

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape, dtype = self.plan(x)
        return SymbolicTensor(shape, dtype), SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        _, dtype = self.plan(x)
        cdtype = compute_dtype(dtype)
        real, imag = composite("math", "stft")(
            to_tensor(x, cdtype),
            self.sequence_stride,
            self.fft_length,
            self.window_tensor(cdtype),
            self.center,
        )
        return restore(real, dtype), restore(imag, dtype)


def stft(
    x: Any,
    sequence_length: int,
    sequence_stride: int,
    fft_length: int,
    window: Any = "hann",
    center: bool = True,
) -> Any:
    """Short-time Fourier transform of a real signal along its last axis.

    Frames of `fft_length` samples every `sequence_stride` are multiplied by the window
    (of `sequence_length` samples, zero-padded on both sides to `fft_length`) and
    transformed with `rfft`.

    Args:
        sequence_length: window length. sequence_stride: hop between frames.
        fft_length: frame and transform length (>= `sequence_length`).
        window: "hann", "hamming" (periodic), None (rectangular) or a tensor of shape
            ``(sequence_length,)``.
        center: reflect-pad ``fft_length // 2`` samples on both sides so frames are centered.

    Returns:
        A tuple ``(real, imag)`` of shape ``(..., num_frames, fft_length // 2 + 1)``.

    Example:
        >>> real, imag = lamina.ops.stft(np.ones(32), 8, 4, 16)  # each (9, 9)
    """
    return Stft(sequence_length, sequence_stride, fft_length, window, center)(x)


class Istft(_ShortTime):
    def __init__(
        self,
        sequence_length: int,
        sequence_stride: int,
        fft_length: int,
        length: int | None = None,
        window: Any = "hann",
        center: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(sequence_length, sequence_stride, fft_length, window, center, name)
        self.length = _positive_int(self.op_name, length, "length", allow_none=True)

    def plan(self, x: Any) -> tuple[Shape, str, int | None]:
        shape, dtype = _pair(self.op_name, x, 2)
        bins = self.fft_length // 2 + 1
        if shape[-1] is not None and shape[-1] != bins:
            raise ValueError(
                f"`{self.op_name}`: the last dim of `x` must be fft_length // 2 + 1 = {bins}. "
                f"Received: shape={shape}"
            )
        frames = shape[-2]
        if self.length is not None:
            out = self.length
        elif frames is None:
            out = None
        else:
            out = self.fft_length + self.sequence_stride * (frames - 1)
            if self.center:
                out -= 2 * (self.fft_length // 2)
        return (*shape[:-2], out), dtype, out

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape, dtype, _ = self.plan(x)
        return SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        _, dtype, length = self.plan(x)
        assert length is not None
        cdtype = compute_dtype(dtype)
        real, imag = (to_tensor(t, cdtype) for t in x)
        out = composite("math", "istft")(
            real,
            imag,
            self.sequence_stride,
            self.fft_length,
            self.window_tensor(cdtype),
            self.center,
            length,
        )
        return restore(out, dtype)


def istft(
    x: Any,
    sequence_length: int,
    sequence_stride: int,
    fft_length: int,
    length: int | None = None,
    window: Any = "hann",
    center: bool = True,
) -> Any:
    """Inverse of `stft`: overlap-add of the windowed inverse transforms.

    The sum is divided by the overlapped squared window, so ``istft(stft(x))`` gives back
    `x` wherever the windows overlap enough.

    Args:
        x: a tuple ``(real, imag)`` of shape ``(..., num_frames, fft_length // 2 + 1)``.
        sequence_length: the frame length, as in `stft`.
        sequence_stride: the hop between frames, as in `stft`.
        fft_length: the FFT size, as in `stft`.
        length: the output length (cropped or zero-padded); None keeps every sample
            (minus the `center` padding).
        window: the window, as in `stft`.
        center: whether `stft` padded the signal, as in `stft`.

    Example:
        >>> x = np.sin(np.arange(32.0))
        >>> lamina.ops.istft(lamina.ops.stft(x, 8, 2, 8), 8, 2, 8, length=x.shape[-1])  # x
    """
    return Istft(sequence_length, sequence_stride, fft_length, length, window, center)(x)
