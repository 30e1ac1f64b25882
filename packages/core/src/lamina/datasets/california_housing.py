"""California housing prices (8 features per census block group)."""

from __future__ import annotations

from typing import Any

from lamina.datasets import _sources
from lamina.datasets._safe_pickle import load_npz


def load_data(
    version: str = "large",
    path: str = "california_housing.npz",
    test_split: float = 0.2,
    seed: int = 113,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load the California housing data (downloaded once into the cache).

    Args:
        version: ``"large"`` (20,640 samples) or ``"small"`` (the first 600).
        path: the file's name in the cache.
        test_split: the fraction kept for testing (the end of the shuffled data).
        seed: the shuffling seed.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: features ``(n, 8)`` and median house
        values in dollars ``(n,)``.
    """
    test_split = _sources.check_test_split(test_split)
    if version not in ("small", "large"):
        raise ValueError(
            f"Argument `version` must be 'small' or 'large'. Received: version={version!r}"
        )
    arrays = load_npz(_sources.fetch(path, "california_housing.npz"))
    x, y = arrays["x"], arrays["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    return _sources.shuffled_split(x, y, test_split, seed)
