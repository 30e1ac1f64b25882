"""`STFTSpectrogram`: a short-time Fourier transform as a strided convolution whose
kernels (the windowed DFT) are weights, so they can be fine-tuned."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.layers.preprocessing.audio._args import one_of, positive_int

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


def window_samples(window: str | None, length: int, periodic: bool) -> np.ndarray[Any, Any]:
    """A Hann or Hamming window (periodic: the DFT-even form), or ones for None."""
    if window is None:
        return np.ones(length)
    denominator = length if periodic else max(length - 1, 1)
    phase = 2.0 * math.pi * np.arange(length) / denominator
    a0 = 0.5 if window == "hann" else 0.54
    return a0 - (1.0 - a0) * np.cos(phase)


class STFTSpectrogram(Layer):
    """Spectrograms of multi-channel signals ``(batch, samples, channels)`` (channels last)
    or ``(batch, channels, samples)``: each frame of `frame_length` samples, every
    `frame_step`, is windowed and transformed at ``fft_length // 2 + 1`` frequencies, as
    a strided convolution with the real and imaginary DFT kernels (weights, trainable like
    any other).

    The window is divided by ``sqrt(sum(w^2))`` ("density") or ``sum(w)`` ("spectrum").
    Modes: "real", "imag", "stft" (both, real first), "magnitude", "psd" (squared
    magnitude), "log" (``log(psd + 1e-6)``) and "angle" (the phase).

    Args:
        mode: the output, one of log, magnitude, psd, real, imag, angle, stft.
        frame_length: samples per frame.
        frame_step: samples between frames (default: ``frame_length // 2``).
        fft_length: the transform size, at least `frame_length` (default: the smallest
            power of two that holds a frame).
        window: "hann", "hamming" or None (rectangular).
        periodic: use the periodic window (for spectral analysis) instead of the
            symmetric one.
        scaling: "density", "spectrum" or None.
        padding: "valid" (whole frames only) or "same" (zero-padded).
        expand_dims: keep channels on their own axis, ``(batch, frames, freqs, channels)``
            (channels first: ``(batch, channels, frames, freqs)``), instead of folding them
            into the frequency axis.
        data_format: "channels_last" or "channels_first" (default: the global setting).
        **kwargs: base `Layer` arguments.

    Example:
        >>> audio = np.random.default_rng(0).standard_normal((2, 400, 1)).astype("float32")
        >>> layer = lamina.layers.STFTSpectrogram(frame_length=64, frame_step=32)
        >>> tuple(layer(audio).shape)
        (2, 11, 33)
    """

    def __init__(self, mode: str = "log", frame_length: int = 256,
                 frame_step: int | None = None, fft_length: int | None = None,
                 window: str | None = "hann", periodic: bool = False,
                 scaling: str | None = "density", padding: str = "valid",
                 expand_dims: bool = False, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        name = "STFTSpectrogram"
        self.mode = one_of(name, "mode", mode, _MODES)
        self.frame_length = positive_int(name, "frame_length", frame_length)
        self.frame_step = positive_int(name, "frame_step",
                                       frame_step or max(self.frame_length // 2, 1))  # fmt: skip
        default_fft = 2 ** math.ceil(math.log2(self.frame_length))
        self.fft_length = positive_int(name, "fft_length", fft_length or default_fft)
        if self.fft_length < self.frame_length:
            raise ValueError(
                f"{name}: argument `fft_length` must be at least `frame_length` "
                f"({self.frame_length}). Received: fft_length={fft_length!r}"
            )
        self.window = one_of(name, "window", window, ("hann", "hamming", None))
        self.periodic = bool(periodic)
        self.scaling = one_of(name, "scaling", scaling, ("density", "spectrum", None))
        self.padding = one_of(name, "padding", padding, ("valid", "same"))
        self.expand_dims = bool(expand_dims)
        self.data_format = _args.data_format(name, data_format)

    def _kernels(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        w = window_samples(self.window, self.frame_length, self.periodic)
        if self.scaling == "density":
            w = w / np.sqrt(np.sum(w * w))
        elif self.scaling == "spectrum":
            w = w / np.abs(np.sum(w))
        n = np.arange(self.frame_length)[:, None]
        k = np.arange(self.fft_length // 2 + 1)[None, :]
        angle = 2.0 * math.pi * n * k / self.fft_length
        real = (w[:, None] * np.cos(angle))[:, None, :]
        imag = (-w[:, None] * np.sin(angle))[:, None, :]
        return real, imag

    def build(self, input_shape: Any = None) -> None:
        real, imag = self._kernels()
        self.real_kernel = None if self.mode == "imag" else self._kernel("real_kernel", real)
        self.imag_kernel = None if self.mode == "real" else self._kernel("imag_kernel", imag)
        self.built = True

    def _kernel(self, name: str, values: np.ndarray[Any, Any]) -> Any:
        def initializer(shape: Any, dtype: Any = None) -> Any:
            return ops.convert_to_tensor(values, dtype=dtype)

        return self.add_weight(name=name, shape=values.shape, initializer=initializer)

    def _transform(self, signals: Any, kernel: Any) -> Any:
        return ops.conv(signals, ops.cast(kernel, signals.dtype), strides=self.frame_step,
                        padding=self.padding, data_format="channels_last")  # fmt: skip

    def call(self, inputs: Any) -> Any:
        if len(inputs.shape) != 3:
            raise ValueError(
                "STFTSpectrogram: the inputs must have rank 3, (batch, samples, channels) or "
                f"(batch, channels, samples). Received: inputs.shape={tuple(inputs.shape)}"
            )
        x = ops.cast(inputs, self.compute_dtype)
        if self.data_format != "channels_first":
            x = ops.swapaxes(x, 1, 2)
        shape = ops.shape(x)
        signals = ops.reshape(x, (-1, shape[2], 1))
        real = None if self.real_kernel is None else self._transform(signals, self.real_kernel)
        imag = None if self.imag_kernel is None else self._transform(signals, self.imag_kernel)
        if self.mode == "real":
            out = real
        elif self.mode == "imag":
            out = imag
        elif self.mode == "stft":
            out = ops.concatenate([real, imag], axis=-1)
        elif self.mode == "angle":
            out = ops.arctan2(imag, real)
        else:
            psd = ops.add(ops.square(real), ops.square(imag))
            out = {"psd": psd, "magnitude": ops.sqrt(psd), "log": ops.log(ops.add(psd, 1e-6))}[
                self.mode
            ]
        # (batch * channels, frames, freqs) -> (batch, channels, frames, freqs)
        out = ops.reshape(out, (shape[0], shape[1], ops.shape(out)[1], ops.shape(out)[2]))
        return self._arrange(out)

    def _arrange(self, out: Any) -> Any:
        if self.data_format == "channels_first":
            if self.expand_dims:
                return out
            out = ops.transpose(out, (0, 3, 1, 2))  # (batch, freqs, channels, frames)
            shape = ops.shape(out)
            return ops.reshape(out, (shape[0], -1, shape[3]))
        out = ops.transpose(out, (0, 2, 3, 1))  # (batch, frames, freqs, channels)
        if self.expand_dims:
            return out
        shape = ops.shape(out)
        return ops.reshape(out, (shape[0], shape[1], -1))

    def compute_output_shape(self, input_shape: Any) -> Any:
        batch = input_shape[0]
        if self.data_format == "channels_first":
            channels, samples = input_shape[1], input_shape[2]
        else:
            samples, channels = input_shape[1], input_shape[2]
        frames = None
        if samples is not None:
            if self.padding == "same":
                frames = -(-samples // self.frame_step)
            else:
                frames = (samples - self.frame_length) // self.frame_step + 1
        freqs = (self.fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        if self.expand_dims:
            if self.data_format == "channels_first":
                return (batch, channels, frames, freqs)
            return (batch, frames, freqs, channels)
        folded = None if channels is None else freqs * channels
        if self.data_format == "channels_first":
            return (batch, folded, frames)
        return (batch, frames, folded)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "mode": self.mode,
                "frame_length": self.frame_length,
                "frame_step": self.frame_step,
                "fft_length": self.fft_length,
                "window": self.window,
                "periodic": self.periodic,
                "scaling": self.scaling,
                "padding": self.padding,
                "expand_dims": self.expand_dims,
                "data_format": self.data_format,
            }
        )
        return config
