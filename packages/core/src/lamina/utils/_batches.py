"""Samples read by index, grouped into batches: what every dataset utility returns.

A dataset utility describes its samples once (how many, how to read sample `i`, the shape
and dtype of each part) as a `SampleBatches`, a `PyDataset` that `fit` takes on every
backend. When TensorFlow is installed, `to_output` wraps the same batches in a
`tf.data.Dataset`, as Keras 3 returns whatever the active backend.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from lamina.utils.py_dataset import PyDataset

# One part of a sample: its shape without the batch dim (None for a size that varies) and
# its dtype ("string" for text).
PartSpec = tuple[tuple[int | None, ...], str]


def tensorflow_available() -> bool:
    """Whether `tf.data` can be returned (found without importing TensorFlow)."""
    return importlib.util.find_spec("tensorflow") is not None


def check_format(format: str) -> None:
    """Keras 3 names the output kind with `format`; "tf" is the one Lamina returns."""
    if format != "tf":
        raise ValueError(
            "Argument `format` must be 'tf' (a tf.data.Dataset when TensorFlow is installed, "
            f"else a lamina.utils.PyDataset). Received: format={format!r}"
        )


def check_batch_size(batch_size: Any) -> int | None:
    if batch_size is None:
        return None
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(
            "Argument `batch_size` must be None or an int >= 1. "
            f"Received: batch_size={batch_size!r}"
        )
    return batch_size


class SampleBatches(PyDataset):
    """`count` samples, read one by one with `load(i)`, served in batches of `batch_size`.

    With `shuffle`, each pass takes a new permutation from a generator seeded once by
    `seed`, so a run is repeatable. Parts whose shape has a None dim are zero-padded to the
    longest sample of their batch. With `batch_size=None` each item is one sample.

    Args:
        count: the number of samples.
        load: sample index -> a tuple of NumPy arrays (one per part).
        specs: each part's shape (batch dim excluded) and dtype.
        batch_size: samples per batch, or None for unbatched samples.
        shuffle: reshuffle the sample order at each pass.
        seed: the seed of that shuffling.
    """

    def __init__(
        self,
        count: int,
        load: Callable[[int], tuple[Any, ...]],
        specs: Sequence[PartSpec],
        batch_size: int | None,
        shuffle: bool = False,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.count = int(count)
        self.load = load
        self.specs = list(specs)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self._rng = np.random.default_rng(seed)
        self._order = self._next_order()

    def _next_order(self) -> np.ndarray[Any, Any]:
        if self.shuffle:
            return self._rng.permutation(self.count)
        return np.arange(self.count)

    def __len__(self) -> int:
        if self.batch_size is None:
            return self.count
        return math.ceil(self.count / self.batch_size)

    def __getitem__(self, index: int) -> Any:
        return self.batch_at(self._order, index)

    def batch_at(self, order: np.ndarray[Any, Any], index: int) -> Any:
        """Batch `index` of a pass that reads the samples in `order`."""
        if not 0 <= index < len(self):
            raise IndexError(f"Batch index {index} is out of range: there are {len(self)}.")
        if self.batch_size is None:
            parts = tuple(
                self._as_part(p, s) for p, s in zip(self.load(int(order[index])), self.specs)
            )
        else:
            chosen = order[index * self.batch_size : (index + 1) * self.batch_size]
            samples = [self.load(int(i)) for i in chosen]
            parts = tuple(
                self._stack([s[k] for s in samples], spec) for k, spec in enumerate(self.specs)
            )
        return parts[0] if len(parts) == 1 else parts

    @staticmethod
    def _as_part(value: Any, spec: PartSpec) -> Any:
        if spec[1] == "string":
            out = np.empty((), dtype=object)
            out[()] = value
            return out
        return np.asarray(value, dtype=spec[1])

    @staticmethod
    def _stack(values: list[Any], spec: PartSpec) -> np.ndarray[Any, Any]:
        if spec[1] == "string":
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out
        arrays = [np.asarray(v, dtype=spec[1]) for v in values]
        if None in spec[0]:
            longest = np.max([a.shape for a in arrays], axis=0)
            arrays = [
                np.pad(a, [(0, int(m - d)) for d, m in zip(a.shape, longest)]) for a in arrays
            ]
        return np.stack(arrays)

    def passes(self) -> Iterator[Any]:
        """One pass over the batches (a fresh order each pass when shuffling)."""
        order = self._next_order()
        for index in range(len(self)):
            yield self.batch_at(order, index)

    def unbatched(self) -> SampleBatches:
        """The same samples one by one, sharing this generator of shuffles."""
        single = SampleBatches(self.count, self.load, self.specs, None, self.shuffle)
        single._rng = self._rng
        return single

    def on_epoch_end(self) -> None:
        self._order = self._next_order()


def to_output(batches: SampleBatches, **attributes: Any) -> Any:
    """A `tf.data.Dataset` of the batches when TensorFlow is installed, else `batches`.

    `attributes` (``class_names``, ``file_paths``) are set on what is returned, as Keras
    3 sets them on its datasets.
    """
    output: Any = batches
    if tensorflow_available():
        from lamina.utils._tf_data import batches_to_tf_dataset

        output = batches_to_tf_dataset(batches)
    for name, value in attributes.items():
        setattr(output, name, value)
    return output
