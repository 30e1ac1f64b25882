"""MelSpectrogram and STFTSpectrogram: the layer contract on every backend and NumPy
references (a direct DFT of each frame; mel filters built independently in the test):
1e-4 relative / 1e-3 absolute on linear outputs, 1e-2 dB absolute on decibels."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(11)
AUDIO = RNG.standard_normal((2, 300)).astype("float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _window(kind: str | None, n: int, periodic: bool) -> np.ndarray:
    if kind is None:
        return np.ones(n)
    import scipy.signal

    return scipy.signal.get_window(kind, n, fftbins=periodic)


def _frames_dft(x: np.ndarray, length: int, step: int, fft: int, w: np.ndarray) -> np.ndarray:
    """Complex DFT of each frame (frames along axis -2), the frame zero-padded to `fft`."""
    count = (x.shape[-1] - length) // step + 1
    frames = np.stack([x[..., i * step : i * step + length] * w for i in range(count)], -2)
    return np.fft.rfft(frames.astype("float64"), n=fft)


def _mel_filters(n_mels: int, n_fft: int, rate: float, low: float, high: float) -> np.ndarray:
    mel = lambda f: 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)  # noqa: E731
    freqs = np.linspace(0, rate / 2, n_fft // 2 + 1)
    edges = np.linspace(mel(low), mel(high), n_mels + 2)
    m = mel(freqs)
    out = np.zeros((len(freqs), n_mels))
    for j in range(n_mels):
        up = (m - edges[j]) / (edges[j + 1] - edges[j])
        down = (edges[j + 2] - m) / (edges[j + 2] - edges[j + 1])
        out[:, j] = np.clip(np.minimum(up, down), 0, None)
    out[0] = 0.0
    return out


def _mel_reference(x: np.ndarray, fft: int, step: int, n_mels: int, rate: int, low: float,
                   high: float, db: bool, top_db: float = 80.0) -> np.ndarray:  # fmt: skip
    padded = np.pad(x, [(0, 0), (fft // 2, fft // 2)], mode="reflect")
    spec = np.abs(_frames_dft(padded, fft, step, fft, _window("hann", fft, True))) ** 2
    mel = spec @ _mel_filters(n_mels, fft, rate, low, high)
    if db:
        mel = 10 * np.log10(np.maximum(mel, 1e-10))
        mel = np.maximum(mel, mel.max() - top_db)
    return np.swapaxes(mel, -1, -2)


def test_mel_contract() -> None:
    check_layer(
        layers.MelSpectrogram,
        {"fft_length": 64, "sequence_stride": 32, "num_mel_bins": 16, "sampling_rate": 8000},
        input_shape=(2, 256), expected_output_shape=(2, 16, 9),
        expected_num_trainable_weights=0,
    )  # fmt: skip


@pytest.mark.parametrize("db", [False, True])
def test_mel_matches_numpy(db: bool) -> None:
    layer = layers.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=12,
                                  sampling_rate=8000, min_freq=100.0, max_freq=3000.0,
                                  power_to_db=db)  # fmt: skip
    out = _np(layer(AUDIO))
    expected = _mel_reference(AUDIO.astype("float64"), 64, 16, 12, 8000, 100.0, 3000.0, db)
    assert out.shape == expected.shape == (2, 12, 19)
    if db:
        np.testing.assert_allclose(out, expected, atol=1e-2)
    else:
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(_np(layer(AUDIO[0])), out[0], rtol=1e-5, atol=1e-4)


def test_mel_top_db_config_and_errors() -> None:
    out = _np(layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8,
                                    top_db=20.0)(AUDIO))  # fmt: skip
    assert out.max() - out.min() <= 20.0 + 1e-4
    config = layers.MelSpectrogram(fft_length=128, num_mel_bins=20).get_config()
    assert layers.MelSpectrogram.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`fft_length`"):
        layers.MelSpectrogram(fft_length=0)
    with pytest.raises(ValueError, match="`window`"):
        layers.MelSpectrogram(window="kaiser")
    with pytest.raises(ValueError, match="`sequence_length`"):
        layers.MelSpectrogram(fft_length=64, sequence_length=128)


STFT_CASES = [
    {"mode": "log", "frame_length": 32, "frame_step": 16},
    {"mode": "stft", "frame_length": 20, "frame_step": 8, "fft_length": 32, "periodic": True},
    {"mode": "magnitude", "frame_length": 16, "window": "hamming", "scaling": "spectrum"},
    {"mode": "real", "frame_length": 16, "window": None, "scaling": None},
    {"mode": "angle", "frame_length": 16, "frame_step": 5},
]


@pytest.mark.parametrize("kwargs", STFT_CASES[:3])
def test_stft_contract(kwargs: dict) -> None:
    layer = layers.STFTSpectrogram(**kwargs)
    frames = (120 - layer.frame_length) // layer.frame_step + 1
    bins = (layer.fft_length // 2 + 1) * (2 if kwargs["mode"] == "stft" else 1)
    check_layer(
        layers.STFTSpectrogram, kwargs, input_shape=(2, 120, 2),
        expected_output_shape=(2, frames, bins * 2), expected_num_trainable_weights=2,
    )  # fmt: skip


def _stft_reference(x: np.ndarray, layer: layers.STFTSpectrogram) -> np.ndarray:
    """(batch, channels, frames, freqs) in the layer's mode, from NumPy's rfft."""
    w = _window(layer.window, layer.frame_length, layer.periodic)
    if layer.scaling == "density":
        w = w / np.sqrt(np.sum(w**2))
    elif layer.scaling == "spectrum":
        w = w / np.sum(w)
    z = _frames_dft(np.swapaxes(x, 1, 2), layer.frame_length, layer.frame_step,
                    layer.fft_length, w)  # fmt: skip
    return {
        "real": z.real, "imag": z.imag, "stft": np.concatenate([z.real, z.imag], -1),
        "magnitude": np.abs(z), "psd": np.abs(z) ** 2, "log": np.log(np.abs(z) ** 2 + 1e-6),
        "angle": np.angle(z),
    }[layer.mode]  # fmt: skip


@pytest.mark.parametrize("kwargs", STFT_CASES)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_stft_matches_numpy(kwargs: dict, data_format: str) -> None:
    x = RNG.standard_normal((2, 100, 3)).astype("float32")
    cf = data_format == "channels_first"
    for expand in (False, True):
        layer = layers.STFTSpectrogram(**kwargs, expand_dims=expand, data_format=data_format)
        out = _np(layer(np.swapaxes(x, 1, 2) if cf else x))
        ref = _stft_reference(x, layer)  # (batch, channels, frames, freqs)
        if cf:
            expected = ref if expand else ref.transpose(0, 3, 1, 2).reshape(2, -1, ref.shape[2])
        else:
            ref = ref.transpose(0, 2, 3, 1)
            expected = ref if expand else ref.reshape(2, ref.shape[1], -1)
        assert out.shape == expected.shape
        assert tuple(layer.compute_output_shape(x.shape if not cf else (2, 3, 100))) == out.shape
        if kwargs["mode"] == "angle":  # compare phases where the magnitude is not tiny
            out, expected = np.cos(out), np.cos(expected)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=2e-3)


def test_stft_same_padding_config_and_errors() -> None:
    layer = layers.STFTSpectrogram(mode="psd", frame_length=16, frame_step=8, padding="same")
    assert _np(layer(RNG.standard_normal((1, 100, 1)).astype("float32"))).shape == (1, 13, 9)
    config = layer.get_config()
    assert layers.STFTSpectrogram.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`mode`"):
        layers.STFTSpectrogram(mode="power")
    with pytest.raises(ValueError, match="`fft_length`"):
        layers.STFTSpectrogram(frame_length=64, fft_length=32)
