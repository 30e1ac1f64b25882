"""numpy: control flow as plain Python loops, structural updates on copies."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import Tensor, clamped_block, forward_only, no_gradient

Flat = tuple[Tensor, ...]


# No automatic differentiation: nothing to stop, and a custom gradient is never asked for.
stop_gradient = no_gradient
custom_gradient = forward_only


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[clamped_block(start_indices, tuple(updates.shape), tuple(inputs.shape))] = updates
    return out


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    out = np.zeros(shape, values.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), values)
    return out


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[tuple(np.moveaxis(indices, -1, 0))] = updates
    return out
