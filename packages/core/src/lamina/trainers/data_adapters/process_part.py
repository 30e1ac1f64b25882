"""Each process of a multi-process job reads its own rows of every global batch.

`fit` is given the same `PyDataset` or torch `DataLoader` on every process, batched by the
global batch size; under a distribution with `auto_shard_dataset`, each process keeps one
slice of each batch, as `Distribution.distribute_dataset` does for a `tf.data.Dataset`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina import tree
from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import is_torch_dataloader


class ProcessPartAdapter(DataAdapter):
    """Process `process_id`'s slice of each batch another adapter yields.

    A batch of `n` rows is cut at ``i * n // num_processes``: equal parts when `n` divides,
    parts one row apart otherwise (a partial last batch).
    """

    def __init__(self, adapter: DataAdapter, num_processes: int, process_id: int) -> None:
        self._adapter = adapter
        self._num_processes = num_processes
        self._process_id = process_id
        self.reiterable = adapter.reiterable

    @property
    def num_batches(self) -> int | None:
        return self._adapter.num_batches

    @property
    def batch_size(self) -> int | None:
        size = self._adapter.batch_size
        return None if size is None else size // self._num_processes

    @property
    def has_partial_batch(self) -> bool | None:
        return self._adapter.has_partial_batch

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        for batch in self._adapter.get_numpy_iterator():
            rows = int(tree.flatten(batch)[0].shape[0])
            start = self._process_id * rows // self._num_processes
            stop = (self._process_id + 1) * rows // self._num_processes
            yield tree.map_structure(lambda a, start=start, stop=stop: a[start:stop], batch)


def this_process_part(adapter: DataAdapter, source: Any) -> DataAdapter:
    """`adapter` limited to this process's rows when a multi-process distribution with
    `auto_shard_dataset` is in effect, else `adapter` itself.

    A torch `DataLoader` whose sampler is already a `DistributedSampler` gives each process
    its own samples, so it is read whole.
    """
    from lamina.distribution import distribution
    from lamina.distribution.engine import num_processes, process_id

    current = distribution()
    if current is None or not current.auto_shard_dataset or num_processes() == 1:
        return adapter
    if is_torch_dataloader(source):
        from torch.utils.data.distributed import DistributedSampler

        if isinstance(source.sampler, DistributedSampler):
            return adapter
    return ProcessPartAdapter(adapter, num_processes(), process_id())
