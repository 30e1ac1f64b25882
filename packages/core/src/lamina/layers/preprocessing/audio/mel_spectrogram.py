"""`MelSpectrogram`: STFT power, mel filter bank, optional decibels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing.audio._args import number, one_of, positive_int


def _hertz_to_mel(hertz: Any) -> Any:
    return 1127.0 * np.log1p(np.asarray(hertz, "float64") / 700.0)


def linear_to_mel_weight_matrix(
    num_mel_bins: int, num_spectrogram_bins: int, sampling_rate: float,
    lower_edge_hertz: float, upper_edge_hertz: float,
) -> np.ndarray[Any, Any]:  # fmt: skip
    """The ``(num_spectrogram_bins, num_mel_bins)`` triangular filter bank on the HTK mel
    scale: band ``m`` rises from mel edge ``m`` to ``m + 1`` and falls to ``m + 2``, the
    edges evenly spaced in mel from `lower_edge_hertz` to `upper_edge_hertz`; the DC bin
    gets no weight."""
    nyquist = sampling_rate / 2.0
    bins_mel = _hertz_to_mel(np.linspace(0.0, nyquist, num_spectrogram_bins)[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz),
                        num_mel_bins + 2)  # fmt: skip
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    rising = (bins_mel - lower) / (center - lower)
    falling = (upper - bins_mel) / (upper - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return np.concatenate([np.zeros((1, num_mel_bins)), weights]).astype("float32")


class MelSpectrogram(Layer):
    """Mel spectrograms of raw audio: ``|STFT|^mag_exp`` (centered, reflect-padded frames)
    through a mel filter bank, then, with `power_to_db`, ``10 log10(max(p, min_power) /
    ref_power)`` floored at the largest value of the call minus `top_db`. Input
    ``(batch, samples)`` or ``(samples,)``; output ``(batch, num_mel_bins, frames)``.

    Args:
        fft_length: the FFT size (``fft_length // 2 + 1`` frequency bins).
        sequence_stride: samples between successive frames.
        sequence_length: the window length (default: `fft_length`).
        window: "hann", "hamming" or None.
        sampling_rate: the signal's sample rate in Hz.
        num_mel_bins: the number of mel bands.
        min_freq: the lowest band edge in Hz.
        max_freq: the highest band edge in Hz (default: half the sampling rate).
        power_to_db: convert to decibels.
        top_db: the dynamic range kept in decibels.
        mag_exp: the exponent on the STFT magnitude (2: power).
        min_power: the floor before the logarithm.
        ref_power: the power that maps to 0 dB.
        **kwargs: base `Layer` arguments.

    Example:
        >>> audio = np.random.default_rng(0).standard_normal((2, 4000)).astype("float32")
        >>> layer = lamina.layers.MelSpectrogram(fft_length=256, sequence_stride=128,
        ...                                      num_mel_bins=32, sampling_rate=8000)
        >>> tuple(layer(audio).shape)
        (2, 32, 32)
    """

    def __init__(self, fft_length: int = 2048, sequence_stride: int = 512,
                 sequence_length: int | None = None, window: str | None = "hann",
                 sampling_rate: int = 16000, num_mel_bins: int = 128, min_freq: float = 20.0,
                 max_freq: float | None = None, power_to_db: bool = True,
                 top_db: float = 80.0, mag_exp: float = 2.0, min_power: float = 1e-10,
                 ref_power: float = 1.0, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        name = "MelSpectrogram"
        self.fft_length = positive_int(name, "fft_length", fft_length)
        self.sequence_stride = positive_int(name, "sequence_stride", sequence_stride)
        self.sequence_length = positive_int(name, "sequence_length",
                                            sequence_length or self.fft_length)  # fmt: skip
        if self.sequence_length > self.fft_length:
            raise ValueError(
                f"{name}: argument `sequence_length` must be at most `fft_length` "
                f"({self.fft_length}). Received: sequence_length={sequence_length!r}"
            )
        self.window = one_of(name, "window", window, ("hann", "hamming", None))
        self.sampling_rate = positive_int(name, "sampling_rate", sampling_rate)
        self.num_mel_bins = positive_int(name, "num_mel_bins", num_mel_bins)
        self.min_freq = number(name, "min_freq", min_freq)
        top = self.sampling_rate / 2.0 if max_freq is None else max_freq
        self.max_freq = number(name, "max_freq", top)
        if not 0 <= self.min_freq < self.max_freq:
            raise ValueError(
                f"{name}: arguments `min_freq` and `max_freq` must satisfy 0 <= min_freq < "
                f"max_freq. Received: min_freq={min_freq!r}, max_freq={max_freq!r}"
            )
        self.power_to_db = bool(power_to_db)
        self.top_db = number(name, "top_db", top_db, positive=True)
        self.mag_exp = number(name, "mag_exp", mag_exp, positive=True)
        self.min_power = number(name, "min_power", min_power, positive=True)
        self.ref_power = number(name, "ref_power", ref_power, positive=True)
        self._mel_weights = linear_to_mel_weight_matrix(
            self.num_mel_bins, self.fft_length // 2 + 1, float(self.sampling_rate),
            self.min_freq, self.max_freq,
        )  # fmt: skip
        self.built = True

    def call(self, inputs: Any) -> Any:
        rank = len(inputs.shape)
        if rank not in (1, 2):
            raise ValueError(
                "MelSpectrogram: the inputs must be one signal (rank 1) or a batch (rank 2). "
                f"Received: inputs.shape={tuple(inputs.shape)}"
            )
        x = ops.cast(inputs, "float32")
        real, imag = ops.stft(x, self.sequence_length, self.sequence_stride, self.fft_length,
                              window=self.window, center=True)  # fmt: skip
        magnitude = ops.sqrt(ops.add(ops.square(real), ops.square(imag)))
        power = ops.power(magnitude, self.mag_exp)
        mel = ops.matmul(power, ops.convert_to_tensor(self._mel_weights, dtype="float32"))
        if self.power_to_db:
            scale = 10.0 / math.log(10.0)
            db = ops.multiply(ops.log(ops.maximum(mel, self.min_power)), scale)
            db = ops.subtract(db, scale * math.log(max(self.ref_power, self.min_power)))
            mel = ops.maximum(db, ops.subtract(ops.max(db), self.top_db))
        return ops.cast(ops.swapaxes(mel, -1, -2), self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        samples = shape[-1]
        padded = None if samples is None else samples + 2 * (self.fft_length // 2)
        frames = None if padded is None else 1 + (padded - self.fft_length) // self.sequence_stride
        return (*shape[:-1], self.num_mel_bins, frames)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length,
                "window": self.window,
                "sampling_rate": self.sampling_rate,
                "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq,
                "max_freq": self.max_freq,
                "power_to_db": self.power_to_db,
                "top_db": self.top_db,
                "mag_exp": self.mag_exp,
                "min_power": self.min_power,
                "ref_power": self.ref_power,
            }
        )
        return config
