"""The CIFAR archives: pickled batches, read with the restricted reader."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from lamina.backend.config import SETTINGS
from lamina.datasets import _sources
from lamina.datasets._safe_pickle import UnsafeDatasetFileError, restricted_loads


def load_batch(fpath: str, label_key: str = "labels") -> tuple[Any, Any]:
    """`(data, labels)` of one batch file: uint8 ``(n, 3, 32, 32)`` and a label list."""
    with open(fpath, "rb") as f:
        batch = restricted_loads(f.read(), fpath)
    if not isinstance(batch, dict):
        raise UnsafeDatasetFileError(f"{fpath} does not hold a dict of arrays and lists.")
    batch = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in batch.items()}
    data = np.asarray(batch["data"])
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def extracted(folder: str, archive: str, inner: str) -> str:
    """Download and extract a CIFAR archive; the folder holding its batch files."""
    path = _sources.fetch(folder, archive, base=_sources.CIFAR_URL, extract=True)
    return os.path.join(path, inner)


def finish(
    x_train: Any, y_train: Any, x_test: Any, y_test: Any
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Labels as uint8 columns; images channels last unless the global format says first."""
    y_train = np.reshape(np.asarray(y_train, "uint8"), (len(y_train), 1))
    y_test = np.reshape(np.asarray(y_test, "uint8"), (len(y_test), 1))
    if SETTINGS.image_data_format == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test)
