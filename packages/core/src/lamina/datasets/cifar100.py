"""CIFAR-100: 60,000 32x32 colour images in 100 fine (20 coarse) classes."""

from __future__ import annotations

import os
from typing import Any

from lamina.datasets import _cifar


def load_data(label_mode: str = "fine") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load CIFAR-100 (downloaded and extracted once into the cache).

    Args:
        label_mode: ``"fine"`` (100 classes) or ``"coarse"`` (20 superclasses).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images ``(50000, 32, 32, 3)`` and
        ``(10000, 32, 32, 3)``, uint8 labels of shape ``(n, 1)``.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(
            f"Argument `label_mode` must be 'fine' or 'coarse'. Received: label_mode={label_mode!r}"
        )
    path = _cifar.extracted(
        "cifar-100-python-target", "cifar-100-python.tar.gz", "cifar-100-python"
    )
    key = f"{label_mode}_labels"
    x_train, y_train = _cifar.load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = _cifar.load_batch(os.path.join(path, "test"), label_key=key)
    return _cifar.finish(x_train, y_train, x_test, y_test)
