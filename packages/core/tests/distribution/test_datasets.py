"""`Distribution.distribute_dataset`: each process of a job reads its part of every batch of
a `tf.data.Dataset` (run wherever TensorFlow is installed, whatever the backend)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import distribution as dist

tf = pytest.importorskip("tensorflow")


def _batches(dataset: object) -> list[list[int]]:
    return [b.tolist() for b in dataset.as_numpy_iterator()]  # type: ignore[attr-defined]


@pytest.mark.parametrize("drop_remainder", [False, True])
def test_each_process_keeps_its_slice_of_each_global_batch(drop_remainder: bool) -> None:
    from lamina.trainers.data_adapters.tf_dataset_adapter import shard_dataset

    dataset = tf.data.Dataset.range(12).batch(4, drop_remainder=drop_remainder)
    assert _batches(shard_dataset(dataset, 2, 0)) == [[0, 1], [4, 5], [8, 9]]
    assert _batches(shard_dataset(dataset, 2, 1)) == [[2, 3], [6, 7], [10, 11]]
    quarters = [_batches(shard_dataset(dataset, 4, i)) for i in range(4)]
    assert quarters[3] == [[3], [7], [11]]
    # Together the processes read every row once.
    rows = sorted(r for part in quarters for batch in part for r in batch)
    assert rows == list(range(12))


def test_uneven_batches_and_other_sources_are_refused() -> None:
    from lamina.trainers.data_adapters.tf_dataset_adapter import shard_dataset

    with pytest.raises(ValueError, match="batch size 3 does not divide between 2"):
        shard_dataset(tf.data.Dataset.range(6).batch(3), 2, 0)
    with pytest.raises(ValueError, match="empty dataset"):
        shard_dataset(tf.data.Dataset.range(0).batch(2), 2, 0)
    strategy = dist.DataParallel(device_mesh=dist.DeviceMesh((1,), ("batch",), ["cpu:0"]))
    with pytest.raises(ValueError, match="Received: dataset of type ndarray"):
        strategy.distribute_dataset(np.zeros((4, 2)))


def test_one_process_reads_the_whole_dataset() -> None:
    strategy = dist.DataParallel(device_mesh=dist.DeviceMesh((1,), ("batch",), ["cpu:0"]))
    dataset = tf.data.Dataset.range(4).batch(2)
    assert strategy.distribute_dataset(dataset) is dataset
