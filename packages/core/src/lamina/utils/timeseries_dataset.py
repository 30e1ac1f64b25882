"""`timeseries_dataset_from_array`: sliding windows over an array, batched."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.utils._batches import SampleBatches, check_batch_size, check_format, to_output


def _positive(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(
            f"timeseries_dataset_from_array: argument `{name}` must be an int >= 1. "
            f"Received: {name}={value!r}"
        )
    return int(value)


def timeseries_dataset_from_array(
    data: Any,
    targets: Any,
    sequence_length: int,
    sequence_stride: int = 1,
    sampling_rate: int = 1,
    batch_size: int | None = 128,
    shuffle: bool = False,
    seed: int | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    format: str = "tf",
) -> Any:
    """Windows of `sequence_length` steps over `data`, each with the target of its start.

    Window ``i`` starts at ``start_index + i * sequence_stride`` and takes every
    `sampling_rate`-th step; its target is ``targets[start]``. Only windows that end
    before `end_index` are made.

    Args:
        data: an array (or tensor) of time steps along axis 0.
        targets: one target per time step, or None for windows only.
        sequence_length: steps per window.
        sequence_stride: steps between the starts of two windows.
        sampling_rate: steps between two samples of a window.
        batch_size: windows per batch, or None for single windows.
        shuffle: shuffle the windows (seeded) and each pass.
        seed: the shuffling seed.
        start_index: the first step used (default 0).
        end_index: one past the last step used (default: all of `data`).
        format: ``"tf"``.

    Returns:
        A `tf.data.Dataset` when TensorFlow is installed, else a `lamina.utils.PyDataset`,
        of ``(windows, targets)`` (or windows alone).

    Example:
        >>> ds = lamina.utils.timeseries_dataset_from_array(
        ...     np.arange(10), None, sequence_length=3, batch_size=None, format="tf")
        >>> len(list(ds))
        8
    """
    from lamina import ops

    check_format(format)
    batch_size = check_batch_size(batch_size)
    data = np.asarray(ops.convert_to_numpy(data)) if ops.is_tensor(data) else np.asarray(data)
    if targets is not None:
        targets = (
            np.asarray(ops.convert_to_numpy(targets))
            if ops.is_tensor(targets)
            else np.asarray(targets)
        )
    sequence_length = _positive("sequence_length", sequence_length)
    sequence_stride = _positive("sequence_stride", sequence_stride)
    sampling_rate = _positive("sampling_rate", sampling_rate)
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if not 0 <= start < len(data):
        raise ValueError(
            "timeseries_dataset_from_array: argument `start_index` must be >= 0 and lower "
            f"than the length of `data` ({len(data)}). Received: start_index={start_index!r}"
        )
    if not start < end <= len(data):
        raise ValueError(
            "timeseries_dataset_from_array: argument `end_index` must be greater than "
            f"`start_index` ({start}) and at most the length of `data` ({len(data)}). "
            f"Received: end_index={end_index!r}"
        )
    span = (sequence_length - 1) * sampling_rate
    count = end - start - span
    if targets is not None:
        count = min(count, len(targets))
    starts = np.arange(0, max(count, 0), sequence_stride, dtype="int64")
    if shuffle:
        if seed is None:
            seed = int(np.random.randint(1_000_000))
        starts = np.random.RandomState(seed).permutation(starts)
    offsets = np.arange(sequence_length, dtype="int64") * sampling_rate
    window_data = data[start:end]
    window_targets = None if targets is None else targets[start:end]

    def load(i: int) -> tuple[Any, ...]:
        window = window_data[starts[i] + offsets]
        if window_targets is None:
            return (window,)
        return window, window_targets[starts[i]]

    specs: list[Any] = [((sequence_length, *data.shape[1:]), str(data.dtype))]
    if window_targets is not None:
        specs.append((tuple(targets.shape[1:]), str(targets.dtype)))
    return to_output(SampleBatches(len(starts), load, specs, batch_size, shuffle, seed))
