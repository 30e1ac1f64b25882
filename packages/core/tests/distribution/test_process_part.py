"""`fit` given a `PyDataset` of global batches in a multi-process job: each process reads
its slice of every batch (the two-process runs are in `test_multi_process.py`)."""

from __future__ import annotations

from typing import Any

import numpy as np

import lamina
from lamina.trainers.data_adapters import get_data_adapter
from lamina.trainers.data_adapters.process_part import ProcessPartAdapter


class _Rows(lamina.utils.PyDataset):
    """Rows 0..9 in batches of 4 (the last one partial), as `(x, y)`."""

    def __len__(self) -> int:
        return 3

    def __getitem__(self, i: int) -> tuple[Any, Any]:
        rows = np.arange(10)[i * 4 : (i + 1) * 4]
        return rows[:, None].astype("float32"), {"y": rows}


def _rows(adapter: Any) -> list[list[int]]:
    return [np.asarray(batch[1]["y"]).tolist() for batch in adapter.get_numpy_iterator()]


def test_each_process_keeps_its_slice_of_each_batch() -> None:
    whole = get_data_adapter(_Rows(), shuffle=False)
    assert not isinstance(whole, ProcessPartAdapter)  # one process: read whole
    parts = [ProcessPartAdapter(whole, 2, rank) for rank in range(2)]
    assert _rows(parts[0]) == [[0, 1], [4, 5], [8]]
    assert _rows(parts[1]) == [[2, 3], [6, 7], [9]]
    assert parts[0].num_batches == 3
    thirds = [_rows(ProcessPartAdapter(whole, 3, rank)) for rank in range(3)]
    assert sorted(r for part in thirds for batch in part for r in batch) == list(range(10))
    # x and y are cut alike.
    x, y = next(parts[1].get_numpy_iterator())
    assert np.asarray(x)[:, 0].tolist() == np.asarray(y["y"]).tolist() == [2, 3]
