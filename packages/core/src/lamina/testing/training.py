"""Checking a custom training step against the built-in one."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_trains_alike(custom: Any, reference: Any, x: Any, y: Any) -> dict[str, list[float]]:
    """Fit both compiled models the same way; their logs and weights must agree.

    Each is fit for 2 epochs in batches of 8, unshuffled. Logs are compared at rtol 1e-5,
    weights at rtol 1e-5 and atol 1e-6.

    Returns:
        The custom model's `History.history`, for checks of its own.
    """
    history = custom.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    expected = reference.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
    for key in expected:
        np.testing.assert_allclose(history.get(key), expected[key], rtol=1e-5, err_msg=key)
    for got, want in zip(custom.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return dict(history)
