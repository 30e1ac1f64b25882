"""Audio preprocessing layers (Keras 3's names, arguments and configs): spectrograms of
raw signals, deterministic and usable in models and data pipelines alike."""

from lamina.layers.preprocessing.audio.mel_spectrogram import MelSpectrogram as MelSpectrogram
from lamina.layers.preprocessing.audio.stft_spectrogram import (
    STFTSpectrogram as STFTSpectrogram,
)

__all__ = ["MelSpectrogram", "STFTSpectrogram"]
