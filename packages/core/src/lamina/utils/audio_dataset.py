"""`audio_dataset_from_directory`: a labelled dataset of WAV files from class folders."""

from __future__ import annotations

import os
import wave
from typing import Any

import numpy as np

from lamina.utils import _batches
from lamina.utils._batches import SampleBatches, to_output
from lamina.utils._directory import directory_dataset, shared_arguments


def read_wav(path: str, sampling_rate: int | None = None) -> np.ndarray[Any, Any]:
    """A PCM WAV file as float32 ``(samples, channels)`` in ``[-1, 1)``, scaled as
    `tf.audio.decode_wav` scales 16-bit audio (by 2**15)."""
    with wave.open(path, "rb") as f:
        width, channels, rate = f.getsampwidth(), f.getnchannels(), f.getframerate()
        raw = f.readframes(f.getnframes())
    _check_rate(path, rate, sampling_rate)
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
        sampling_rate: the rate every file must have (files are not resampled).
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
    if sampling_rate is not None:  # checked now: an error inside tf.data changes its type
        for dataset in result if isinstance(result, list) else [result]:
            for path in dataset.file_paths:
                with wave.open(path, "rb") as f:
                    _check_rate(path, f.getframerate(), sampling_rate)
    return result


def _check_rate(path: str, rate: int, sampling_rate: int | None) -> None:
    if sampling_rate is not None and rate != sampling_rate:
        raise ValueError(
            f"audio_dataset_from_directory: {path!r} is sampled at {rate} Hz; argument "
            f"`sampling_rate` asks for {sampling_rate} Hz and Lamina does not resample."
        )
