"""Fashion-MNIST: 70,000 28x28 grayscale images of 10 kinds of clothing."""

from __future__ import annotations

import gzip
import os
from typing import Any

import numpy as np

from lamina.datasets import _sources

_FILES = (
    "train-labels-idx1-ubyte.gz",
    "train-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
)


def _read(path: str, offset: int) -> np.ndarray[Any, Any]:
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load Fashion-MNIST (its four IDX files, downloaded once into the cache).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images ``(60000, 28, 28)`` and
        ``(10000, 28, 28)``, uint8 labels 0-9 (T-shirt/top, trouser, pullover, dress,
        coat, sandal, shirt, sneaker, bag, ankle boot).
    """
    folder = os.path.join("datasets", "fashion-mnist")
    paths = [
        _sources.fetch(name, name, base=_sources.KERAS_DATASETS_URL, cache_subdir=folder)
        for name in _FILES
    ]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
