"""MNIST: 70,000 28x28 grayscale images of handwritten digits."""

from __future__ import annotations

from typing import Any

from lamina.datasets import _sources
from lamina.datasets._safe_pickle import load_npz


def load_data(path: str = "mnist.npz") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load MNIST (downloaded once into the cache).

    Args:
        path: the file's name in the cache (``~/.lamina/datasets``).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images ``(60000, 28, 28)`` and
        ``(10000, 28, 28)``, uint8 labels 0-9 ``(60000,)`` and ``(10000,)``.
    """
    arrays = load_npz(_sources.fetch(path, "mnist.npz"))
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])
