"""Resetting process state between experiments (and between tests)."""

from __future__ import annotations

import random

import numpy as np

from lamina.backend.config import reset_session_state


def clear_session(free_memory: bool = True) -> None:
    """Forget generated layer names and uids, so a new model starts from ``dense``, and the
    `lamina.distribution` strategy in effect (as Keras 3 does).

    Args:
        free_memory: run the garbage collector too.
    """
    from lamina.distribution.strategies import set_distribution

    reset_session_state()
    set_distribution(None)
    if free_memory:
        import gc

        gc.collect()


def set_random_seed(seed: int) -> None:
    """Seed Python's `random`, NumPy and Lamina's global seed generator.

    Raises:
        ValueError: `seed` is not a non-negative int.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"Argument `seed` must be a non-negative int. Received: seed={seed!r}")
    random.seed(seed)
    np.random.seed(seed)
    from lamina.backend.config import SETTINGS

    SETTINGS.global_seed = seed
    SETTINGS.global_seed_generator = None  # the next `seed=None` draw restarts from `seed`
