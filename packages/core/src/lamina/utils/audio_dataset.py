"""`audio_dataset_from_directory`: a labelled dataset of WAV files from class folders."""

from __future__ import annotations

import math
import os
import wave
from typing import Any

import numpy as np

from lamina.utils import _batches
from lamina.utils._batches import SampleBatches, to_output
from lamina.utils._directory import directory_dataset, shared_arguments


def read_wav(path: str, sampling_rate: int | None = None) -> np.ndarray[Any, Any]:
    """A PCM WAV file as float32 ``(samples, channels)`` in ``[-1, 1)``, scaled as
    `tf.audio.decode_wav` scales 16-bit audio (by 2**15), resampled to `sampling_rate`
    when given and different from the file's rate."""
    with wave.open(path, "rb") as f:
        width, channels, rate = f.getsampwidth(), f.getnchannels(), f.getframerate()
        raw = f.readframes(f.getnframes())
    audio = _decode_pcm(raw, width, channels, path)
    if sampling_rate is None or sampling_rate == rate:
        return audio
    return resample(audio, rate, sampling_rate)


def _decode_pcm(raw: bytes, width: int, channels: int, path: str) -> np.ndarray[Any, Any]:
    if width == 1:  # 8-bit WAV is unsigned, centred on 128
        values = (np.frombuffer(raw, "uint8").astype("float32") - 128.0) / 128.0
    elif width == 3:
        b = np.frombuffer(raw, "uint8").reshape(-1, 3).astype("int32")
        ints = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        values = ints.astype("float32") / float(1 << 23)
    elif width in (2, 4):
        ints = np.frombuffer(raw, f"<i{width}")
        values = (ints.astype("float64") / float(1 << (8 * width - 1))).astype("float32")
    else:
        raise ValueError(f"Unsupported WAV sample width: {width} bytes in {path!r}")
    return values.reshape(-1, channels)


def audio_dataset_from_directory(
    directory: str | os.PathLike[str],
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: list[str] | None = None,
    batch_size: int | None = 32,
    sampling_rate: int | None = None,
    output_sequence_length: int | None = None,
    ragged: bool = False,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    verbose: bool = True,
) -> Any:
    """A dataset of the ``.wav`` files under `directory`, as float32 audio.

    Each sample is ``(sequence_length, channels)``. Without `output_sequence_length` the
    clips of a batch are zero-padded to the longest (or kept ragged with ``ragged=True``,
    which needs TensorFlow).

    Args:
        directory: the folder of WAV files (one sub-folder per class when inferring).
        labels: ``"inferred"``, None, or a list of integer labels, one per file in
            alphanumeric order of the paths.
        label_mode: ``"int"``, ``"categorical"``, ``"binary"`` or None (audio only).
        class_names: the sub-directories to use, in label order.
        batch_size: clips per batch, or None for single clips.
        sampling_rate: resample every clip to this rate (Hz), as Keras 3 does with
            TensorFlow I/O; here with NumPy (polyphase, as `scipy.signal.resample_poly`).
            `output_sequence_length` then counts samples at this rate.
        output_sequence_length: cut or zero-pad every clip to this many samples.
        ragged: give `tf.RaggedTensor` batches of clips of their own lengths.
        shuffle: shuffle the files (seeded) and each pass.
        seed: the shuffling seed (needed with `validation_split` and `shuffle`).
        validation_split: the fraction of files kept for validation (taken from the end).
        subset: ``"training"``, ``"validation"`` or ``"both"`` (a list of the two).
        follow_links: follow symbolic links to sub-directories.
        verbose: print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` when TensorFlow is installed, else a `lamina.utils.PyDataset`,
        of ``(audio, labels)`` (or audio alone), with `class_names` and `file_paths`.

    Example:
        ```python
        train = lamina.utils.audio_dataset_from_directory("speech/", batch_size=8)
        ```
    """
    shared = shared_arguments(locals())
    caller = "audio_dataset_from_directory"
    for name, value in (
        ("sampling_rate", sampling_rate),
        ("output_sequence_length", output_sequence_length),
    ):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise ValueError(
                f"{caller}: argument `{name}` must be None or an int >= 1. "
                f"Received: {name}={value!r}"
            )
    if ragged and output_sequence_length is not None:
        raise ValueError(
            f"{caller}: `ragged=True` keeps each clip's own length, so it cannot be used "
            f"with `output_sequence_length`. Received: "
            f"output_sequence_length={output_sequence_length!r}"
        )
    wrap = None
    if ragged:
        if not _batches.tensorflow_available():
            raise ImportError(
                f"{caller}: `ragged=True` gives tf.RaggedTensor batches and "
                "needs TensorFlow: pip install tensorflow"
            )
        from lamina.utils._tf_data import ragged_tf_dataset

        def wrap(batches: SampleBatches) -> Any:
            return ragged_tf_dataset(batches)

    def read(path: str) -> np.ndarray[Any, Any]:
        audio = read_wav(path, sampling_rate)
        if output_sequence_length is None:
            return audio
        audio = audio[:output_sequence_length]
        return np.pad(audio, [(0, output_sequence_length - len(audio)), (0, 0)])

    result = directory_dataset(
        caller,
        directory,
        formats=(".wav",),
        kind="audio",
        **shared,
        read=read,
        sample_spec=((output_sequence_length, None), "float32"),
        wrap=wrap if wrap is not None else to_output,
    )
    return result


_RESAMPLE_BLOCK = 8192  # output samples computed at once


def resample(audio: np.ndarray[Any, Any], rate_in: int, rate_out: int) -> np.ndarray[Any, Any]:
    """`audio` ``(samples, channels)`` resampled from `rate_in` to `rate_out` Hz.

    A polyphase FIR resampler, the method of `scipy.signal.resample_poly` with its
    defaults: the rates reduced to ``up / down``, a Kaiser-windowed (beta 5) sinc low-pass
    of ``20 * max(up, down) + 1`` taps at the lower Nyquist rate, centred so that output
    sample ``k`` sits at input time ``k * down / up``; ``ceil(n * up / down)`` samples out.
    Only the taps that meet a non-zero input are summed (the polyphase form).
    """
    g = math.gcd(rate_in, rate_out)
    up, down = rate_out // g, rate_in // g
    n_in = audio.shape[0]
    n_out = -(-n_in * up // down)
    rate = max(up, down)
    half = 10 * rate
    taps = np.arange(2 * half + 1) - half
    h = np.sinc(taps / rate) / rate * np.kaiser(2 * half + 1, 5.0)
    h *= up / h.sum()  # unit gain at DC, times `up` for the zeros put between samples
    # Output k is the filter centred at upsampled position k * down: input j meets tap
    # (k * down - j * up + half); keep the taps of one phase and the inputs they meet.
    per_phase = -(-len(h) // up)
    h = np.concatenate([h, np.zeros(per_phase * up - len(h))])
    t = np.arange(per_phase)
    signal = audio.astype("float64")
    out = np.zeros((n_out, audio.shape[1]), "float32")
    for start in range(0, n_out, _RESAMPLE_BLOCK):  # bounded memory for long clips
        centre = np.arange(start, min(start + _RESAMPLE_BLOCK, n_out)) * down + half
        tap = (centre % up)[:, None] + t[None, :] * up
        source = (centre // up)[:, None] - t[None, :]
        weights = np.where((source >= 0) & (source < n_in), h[tap], 0.0)
        gathered = signal[np.clip(source, 0, max(n_in - 1, 0))]
        out[start : start + len(centre)] = np.einsum("kt,ktc->kc", weights, gathered)
    return out
