"""`DataAdapter`: the interface `EpochIterator` uses to read any kind of training data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class DataAdapter:
    """One kind of input data (arrays, a generator, a dataset) read as batch tuples.

    Subclasses say how many batches one pass holds (`num_batches`, None when unknown or
    infinite), whether a second pass is possible (`reiterable`), and yield one pass of
    batches from `get_numpy_iterator`. Each batch is a tuple ``(x,)``, ``(x, y)`` or
    ``(x, y, sample_weight)`` of nested NumPy arrays or backend tensors.
    """

    #: False for one-shot sources (a Python generator): a new pass continues the old one.
    reiterable: bool = True

    @property
    def num_batches(self) -> int | None:
        """Batches in one pass over the data; None when unknown or infinite."""
        return None

    @property
    def batch_size(self) -> int | None:
        """Samples per batch when the adapter batches the data itself, else None."""
        return None

    @property
    def has_partial_batch(self) -> bool | None:
        """Whether the last batch of a pass is smaller (None when unknown)."""
        return None

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        """Yield the batches of one pass over the data."""
        raise TypeError(f"{type(self).__name__} does not define `get_numpy_iterator`.")
