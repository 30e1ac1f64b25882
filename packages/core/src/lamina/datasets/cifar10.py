"""CIFAR-10: 60,000 32x32 colour images in 10 classes."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from lamina.datasets import _cifar


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load CIFAR-10 (downloaded and extracted once into the cache).

    The batch files are Python pickles; they are read by a restricted reader that
    accepts only dicts of bytes, lists and arrays, and refuses anything else.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images ``(50000, 32, 32, 3)`` and
        ``(10000, 32, 32, 3)`` (channels first with that global image data format), uint8
        labels 0-9 of shape ``(n, 1)``.
    """
    path = _cifar.extracted(
        "cifar-10-batches-py-target", "cifar-10-python.tar.gz", "cifar-10-batches-py"
    )
    parts = [_cifar.load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([data for data, _ in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(labels) for _, labels in parts])
    x_test, y_test = _cifar.load_batch(os.path.join(path, "test_batch"))
    return _cifar.finish(x_train, y_train, x_test, y_test)
