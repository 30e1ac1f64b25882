"""`PyDataset`: index-addressed batches, sequential or computed ahead by workers."""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lamina.trainers.data_adapters import EpochIterator
from lamina.utils import PyDataset, set_random_seed


class Numbers(PyDataset):
    """Batch i is ``(x, y)`` with x filled with i; the n-th batch is smaller."""

    def __init__(self, n: int = 5, delay: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = n
        self.delay = delay
        self.begins = 0
        self.ends = 0
        self.threads: set[str] = set()

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        self.threads.add(threading.current_thread().name)
        if self.delay:
            # Later indices finish first, so only an order-preserving pool passes.
            time.sleep(self.delay * (self.n - index))
        size = 2 if index == self.n - 1 else 3
        return np.full((size, 1), index, "float32"), np.full((size,), index)

    def on_epoch_begin(self) -> None:
        self.begins += 1

    def on_epoch_end(self) -> None:
        self.ends += 1


def _firsts(it: EpochIterator) -> list[int]:
    return [int(b[0][0, 0]) for _, g in it.enumerate_epoch() for b in g]


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_batches_in_order(workers: int) -> None:
    ds = Numbers(5, delay=0.002 if workers > 1 else 0.0, workers=workers)
    it = EpochIterator(ds)
    assert it.num_batches == 5
    batches = [b for _, g in it.enumerate_epoch() for b in g]
    assert [int(b[0][0, 0]) for b in batches] == [0, 1, 2, 3, 4]
    assert [b[0].shape[0] for b in batches] == [3, 3, 3, 3, 2]
    assert all(len(b) == 2 for b in batches)
    assert (ds.begins, ds.ends) == (1, 1)
    if workers > 1:
        assert any(name.startswith("py_dataset") for name in ds.threads)
    else:
        assert ds.threads == {threading.current_thread().name}


def test_workers_with_steps_per_execution_and_epochs() -> None:
    ds = Numbers(5, workers=2, max_queue_size=2)
    it = EpochIterator(ds, steps_per_execution=2)
    for _ in range(2):
        assert [(s, len(g)) for s, g in it.enumerate_epoch()] == [(1, 2), (3, 2), (4, 1)]
    assert ds.ends == 2


def test_shuffle_permutes_indices_deterministically() -> None:
    def order(seed: int) -> list[int]:
        set_random_seed(seed)
        return _firsts(EpochIterator(Numbers(8), shuffle=True))

    first = order(4)
    assert sorted(first) == list(range(8)) and first != list(range(8))
    assert order(4) == first


def test_steps_per_epoch_runs_across_passes() -> None:
    ds = Numbers(3)
    it = EpochIterator(ds, steps_per_epoch=4)
    assert _firsts(it) == [0, 1, 2, 0]
    assert ds.ends == 1
    assert _firsts(it) == [1, 2, 0, 1]
    assert ds.ends == 2


class Endless(PyDataset):
    def __getitem__(self, index: int) -> np.ndarray:
        return np.full((2, 1), index)


def test_infinite_dataset_needs_steps() -> None:
    assert Endless().num_batches is None
    with pytest.raises(ValueError, match=r"`steps_per_epoch` is required.*Endless"):
        EpochIterator(Endless())
    it = EpochIterator(Endless(workers=2), steps_per_epoch=3)
    assert it.num_batches == 3
    assert _firsts(it) == [0, 1, 2]
    assert _firsts(it) == [3, 4, 5]


def test_missing_getitem_and_bad_arguments() -> None:
    class Empty(PyDataset):
        def __len__(self) -> int:
            return 1

    with pytest.raises(TypeError, match=r"Empty must define `__getitem__"):
        list(EpochIterator(Empty()).enumerate_epoch())
    with pytest.raises(ValueError, match=r"`workers` must be an int >= 0.*workers=-1"):
        Numbers(workers=-1)
    with pytest.raises(ValueError, match=r"`max_queue_size`.*max_queue_size=0"):
        Numbers(max_queue_size=0)
    with pytest.raises(ValueError, match=r"`use_multiprocessing` must be a bool"):
        Numbers(use_multiprocessing="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`y` must not be given when `x` is a PyDataset"):
        EpochIterator(Numbers(), y=np.zeros(3))


def test_defaults_without_super_init() -> None:
    class NoInit(PyDataset):
        def __init__(self) -> None:
            self.n = 2

        def __len__(self) -> int:
            return self.n

        def __getitem__(self, index: int) -> np.ndarray:
            return np.zeros((1, 1))

    ds = NoInit()
    assert (ds.workers, ds.use_multiprocessing, ds.max_queue_size) == (1, False, 10)
    assert len(_firsts(EpochIterator(ds))) == 2


MODULE = """
import numpy as np
import os
from lamina.utils import PyDataset


class Pids(PyDataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return np.full((2, 1), index), np.full((2,), os.getpid())
"""


def test_multiprocessing_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Worker processes must import the dataset's class, so it lives in a real module.
    (tmp_path / "lamina_mp_dataset.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lamina_mp_dataset", raising=False)
    import lamina_mp_dataset  # type: ignore[import-not-found]

    ds = lamina_mp_dataset.Pids(workers=2, use_multiprocessing=True)
    batches = [b for _, g in EpochIterator(ds).enumerate_epoch() for b in g]
    assert [int(b[0][0, 0]) for b in batches] == [0, 1, 2, 3]
    pids = {int(b[1][0]) for b in batches}
    import os

    assert os.getpid() not in pids
