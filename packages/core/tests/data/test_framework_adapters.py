"""tf.data datasets and torch DataLoaders (skipped where the framework is missing)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.trainers.data_adapters import EpochIterator


def _data() -> tuple[np.ndarray, np.ndarray]:
    return np.arange(20, dtype="float32").reshape(10, 2), np.arange(10, dtype="int64")


def test_tf_dataset() -> None:
    tf = pytest.importorskip("tensorflow")
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    it = EpochIterator(ds, steps_per_execution=2)
    assert it.num_batches == 3
    groups = list(it.enumerate_epoch())
    assert [(s, len(g)) for s, g in groups] == [(1, 2), (2, 1)]
    batches = [b for _, g in groups for b in g]
    assert [b[0].shape[0] for b in batches] == [4, 4, 2]
    assert all(isinstance(b[0], np.ndarray) for b in batches)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), y)
    # A second epoch starts the dataset again.
    assert sum(len(g) for _, g in it.enumerate_epoch()) == 3


def test_tf_dataset_dicts_and_steps() -> None:
    tf = pytest.importorskip("tensorflow")
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices(({"a": x}, y, np.ones(10, "float32"))).batch(5)
    it = EpochIterator(ds, steps_per_epoch=3)
    batches = [b for _, g in it.enumerate_epoch() for b in g]
    assert len(batches) == 3 and len(batches[0]) == 3
    assert batches[0][0]["a"].shape == (5, 2)
    np.testing.assert_array_equal(batches[2][1], y[:5])  # second pass started


def test_tf_dataset_infinite_has_unknown_length() -> None:
    tf = pytest.importorskip("tensorflow")
    ds = tf.data.Dataset.from_tensor_slices(np.arange(4.0)).batch(2).repeat()
    it = EpochIterator(ds, steps_per_epoch=5)
    assert it.data_adapter.num_batches is None and it.num_batches == 5
    assert sum(len(g) for _, g in it.enumerate_epoch()) == 5
    with pytest.raises(ValueError, match=r"`y` must not be given when `x` is a tf.data"):
        EpochIterator(ds, y=np.zeros(4))


def test_torch_dataloader() -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    from lamina.trainers.data_adapters.data_adapter_utils import is_backend_tensor

    x, y = _data()
    loader = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=4)
    it = EpochIterator(loader)
    assert it.num_batches == 3
    batches = [b for _, g in it.enumerate_epoch() for b in g]
    assert [len(b) for b in batches] == [2, 2, 2]
    assert [b[0].shape[0] for b in batches] == [4, 4, 2]
    for b in batches:
        assert isinstance(b[0], np.ndarray) or is_backend_tensor(b[0])
    got = np.concatenate([np.asarray(b[1].cpu() if hasattr(b[1], "cpu") else b[1])
                          for b in batches])
    np.testing.assert_array_equal(got, y)


def test_torch_dataloader_steps_and_class_weight() -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    x, y = _data()
    labels = torch.from_numpy(y % 2)
    loader = DataLoader(TensorDataset(torch.from_numpy(x), labels), batch_size=4)
    it = EpochIterator(loader, steps_per_epoch=4, class_weight={0: 1.0, 1: 3.0})
    batches = [b for _, g in it.enumerate_epoch() for b in g]
    assert len(batches) == 4
    np.testing.assert_allclose(batches[0][2], [1.0, 3.0, 1.0, 3.0])
    np.testing.assert_allclose(batches[3][2], [1.0, 3.0, 1.0, 3.0])  # second pass
