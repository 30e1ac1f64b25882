"""Batches from a `lamina.utils.PyDataset`, optionally computed ahead by worker pools."""

from __future__ import annotations

import multiprocessing
import random
import sys
import warnings
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from itertools import count
from typing import Any

import numpy as np

from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import standardize_batch
from lamina.utils.py_dataset import PyDataset

# The dataset each worker process reads from (set once per process by the initializer).
_WORKER_DATASET: Any = None


def _init_worker(dataset: Any) -> None:
    global _WORKER_DATASET
    _WORKER_DATASET = dataset


def _worker_get(index: int) -> Any:
    return _WORKER_DATASET[index]


def _start_forked_workers(pool: ProcessPoolExecutor) -> None:
    """Fork `pool`'s workers now, without the frameworks' warnings about forking.

    Forked workers inherit the dataset, and a script without an
    ``if __name__ == "__main__":`` guard is not run again in each of them (as it is under
    "spawn"). JAX (and Python itself from 3.12) warn that a process running threads may
    deadlock in a forked child; the workers only call the dataset's `__getitem__`, and
    they hold no framework state of their own, which is the case those warnings are about.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called")
        warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks")
        pool.submit(int).result()  # a fork-context pool starts every worker on first use


class PyDatasetAdapter(DataAdapter):
    """Reads a `PyDataset` batch by batch, in index order (shuffled when asked).

    With ``workers > 1`` a thread pool (a process pool under `use_multiprocessing`: forked on
    Linux, as Keras does, spawned elsewhere) computes up to `max_queue_size` batches ahead;
    results are still yielded in index order. `on_epoch_begin` / `on_epoch_end` of the
    dataset run around every full pass.

    Args:
        dataset: the `PyDataset`.
        shuffle: visit the batch indices in a new random order each pass (finite datasets).
    """

    def __init__(self, dataset: PyDataset, shuffle: bool | str = False) -> None:
        if not isinstance(dataset, PyDataset):
            raise TypeError(
                "Argument `x` must be a `lamina.utils.PyDataset` for this adapter. "
                f"Received: x of type {type(dataset).__name__}"
            )
        self._dataset = dataset
        self._shuffle = bool(shuffle)
        self._rng = random.Random(int(np.random.randint(0, 2**31 - 1)))
        num = dataset.num_batches
        if num is not None and (isinstance(num, bool) or not isinstance(num, int) or num < 0):
            raise ValueError(
                f"`{type(dataset).__name__}.__len__` (or `num_batches`) must return a "
                f"non-negative int or None. Received: {num!r}"
            )

    @property
    def num_batches(self) -> int | None:
        return self._dataset.num_batches

    def _indices(self) -> Iterable[int]:
        num = self.num_batches
        if num is None:
            return count()
        order = list(range(num))
        if self._shuffle:
            self._rng.shuffle(order)
        return order

    def _make_pool(self) -> Executor:
        ds = self._dataset
        if not ds.use_multiprocessing:
            return ThreadPoolExecutor(max_workers=ds.workers, thread_name_prefix="py_dataset")
        fork = sys.platform.startswith("linux")
        pool = ProcessPoolExecutor(
            max_workers=ds.workers,
            mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
            initializer=_init_worker,
            initargs=(ds,),
        )
        if fork:
            _start_forked_workers(pool)
        return pool

    def _parallel(self, indices: Iterable[int]) -> Iterator[Any]:
        ds = self._dataset
        pool = self._make_pool()
        pending: deque[Future[Any]] = deque()
        it = iter(indices)
        ahead = max(ds.max_queue_size, ds.workers)

        def submit() -> bool:
            index = next(it, None)
            if index is None:
                return False
            if isinstance(pool, ProcessPoolExecutor):
                pending.append(pool.submit(_worker_get, index))
            else:
                pending.append(pool.submit(ds.__getitem__, index))
            return True

        try:
            for _ in range(ahead):
                if not submit():
                    break
            while pending:
                future = pending.popleft()
                submit()
                yield future.result()
        finally:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        ds = self._dataset
        ds.on_epoch_begin()
        indices = self._indices()
        if ds.workers > 1:
            source: Iterator[Any] = self._parallel(indices)
        else:
            source = (ds[i] for i in indices)
        try:
            for batch in source:
                yield standardize_batch(batch)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()
        ds.on_epoch_end()
