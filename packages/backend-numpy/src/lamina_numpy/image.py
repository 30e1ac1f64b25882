"""NumPy: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import Tensor


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = np.moveaxis(np.tensordot(w, x, axes=([1], [axis])), 0, axis)
    return x


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return np.pad(x, paddings, mode="constant", constant_values=constant_value)
    return np.pad(x, paddings, mode=mode)  # type: ignore[call-overload]
