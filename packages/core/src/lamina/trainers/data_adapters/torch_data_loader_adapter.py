"""Batches from a `torch.utils.data.DataLoader` (torch is imported only here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import standardize_batch


class TorchDataLoaderAdapter(DataAdapter):
    """Iterates a `DataLoader`; each pass starts a new pass of the loader.

    Under the torch backend its tensors are passed on as they are; under the other
    backends they become NumPy arrays.

    Args:
        dataloader: a loader whose batches are `x`, `(x, y)` or `(x, y, sample_weight)`.
    """

    def __init__(self, dataloader: Any) -> None:
        from torch.utils.data import DataLoader

        if not isinstance(dataloader, DataLoader):
            raise TypeError(
                "Argument `x` must be a `torch.utils.data.DataLoader` for this adapter. "
                f"Received: x of type {type(dataloader).__name__}"
            )
        self._loader = dataloader
        try:
            self._num_batches: int | None = len(dataloader)
        except TypeError:  # an IterableDataset without a length
            self._num_batches = None

    @property
    def num_batches(self) -> int | None:
        return self._num_batches

    @property
    def batch_size(self) -> int | None:
        size = self._loader.batch_size
        return int(size) if size is not None else None

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        for batch in self._loader:
            yield standardize_batch(batch)
