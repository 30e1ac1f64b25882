"""Fixtures for the dataset utilities: both kinds of output they can return."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from lamina.utils import _batches


@pytest.fixture(params=["tf.data", "PyDataset"])
def output(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with TensorFlow seen as installed (tf.data out) and as missing."""
    if request.param == "PyDataset":
        monkeypatch.setattr(_batches, "tensorflow_available", lambda: False)
    elif not _batches.tensorflow_available():
        pytest.skip("TensorFlow is not installed: no tf.data output to check")
    return str(request.param)


def as_numpy(batch: Any) -> Any:
    """A batch (tf tensors or NumPy arrays, alone or in a tuple) as NumPy."""
    if isinstance(batch, tuple):
        return tuple(as_numpy(b) for b in batch)
    if isinstance(batch, dict):
        return {k: as_numpy(v) for k, v in batch.items()}
    if hasattr(batch, "numpy"):
        value = np.asarray(batch.numpy())
        if value.dtype.kind in ("S", "O"):
            return np.asarray(
                [v.decode() if isinstance(v, bytes) else v for v in value.reshape(-1)], dtype=object
            ).reshape(value.shape)
        return value
    return np.asarray(batch)


def batches_of(dataset: Any) -> Iterator[Any]:
    """One pass over a dataset utility's output, as NumPy."""
    if isinstance(dataset, _batches.SampleBatches):
        for i in range(len(dataset)):
            yield as_numpy(dataset[i])
        dataset.on_epoch_end()
    else:
        for batch in dataset:
            yield as_numpy(batch)


def check_kind(dataset: Any, output: str) -> None:
    if output == "PyDataset":
        assert isinstance(dataset, _batches.SampleBatches)
    else:
        import tensorflow as tf

        assert isinstance(dataset, tf.data.Dataset)
