"""Boston housing prices (13 features per district; see Keras' note on its ethics)."""

from __future__ import annotations

from typing import Any

from lamina.datasets import _sources
from lamina.datasets._safe_pickle import load_npz


def load_data(
    path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load the Boston housing data (downloaded once into the cache).

    Args:
        path: the file's name in the cache.
        test_split: the fraction kept for testing (the end of the shuffled data).
        seed: the shuffling seed.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: features ``(n, 13)`` and prices in
        k$ ``(n,)``.
    """
    test_split = _sources.check_test_split(test_split)
    arrays = load_npz(_sources.fetch(path, "boston_housing.npz"))
    return _sources.shuffled_split(arrays["x"], arrays["y"], test_split, seed)
