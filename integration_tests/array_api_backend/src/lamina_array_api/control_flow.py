"""array API: the structural primitives (scatter, slice updates) and the gradient no-ops.

Loops, branches and slicing are core composites. The standard has no scatter; `scatter`
sums through a one-hot matmul and `scatter_update` selects each slot's last writer, both on
flattened leading indices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lamina.backend.kit import Tensor, forward_only, no_gradient
from lamina_array_api._xp import last_writer, pad_constant, scatter_rows, xp

__all__ = [
    "custom_gradient",
    "scatter",
    "scatter_update",
    "slice_update",
    "stop_gradient",
]

Flat = tuple[Tensor, ...]


# No automatic differentiation: nothing to stop, and a custom gradient is never asked for.
stop_gradient = no_gradient
custom_gradient = forward_only


def _starts(inputs: Tensor, start_indices: Flat, shape: Sequence[int]) -> list[int]:
    """Starts wrapped (negative from the end) and clamped so the block fits, as jax does."""
    out = []
    for s, n, d in zip(start_indices, shape, inputs.shape):
        start = int(s)
        out.append(min(max(start + d if start < 0 else start, 0), d - n))
    return out


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    starts = _starts(inputs, start_indices, updates.shape)
    widths = [(s, d - s - n) for s, n, d in zip(starts, updates.shape, inputs.shape)]
    placed = pad_constant(xp.astype(updates, inputs.dtype), widths)
    inside = pad_constant(xp.ones(updates.shape, dtype=xp.bool), widths, False)
    return xp.where(inside, placed, inputs)


def _flat_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, int]:
    """Row-major offsets of the leading `k` coordinates in `indices` ``(..., k)``."""
    k = indices.shape[-1]
    idx = xp.astype(xp.reshape(indices, (-1, k)), xp.int64)
    flat = xp.zeros((idx.shape[0],), dtype=xp.int64)
    for j in range(k):
        flat = flat * shape[j] + idx[:, j]
    return flat, math.prod(shape[:k])


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    flat, cells = _flat_index(indices, shape)
    k = indices.shape[-1]
    rows = xp.reshape(values, (flat.shape[0], *shape[k:]))
    return xp.reshape(scatter_rows(flat, rows, cells), shape)


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    shape = tuple(inputs.shape)
    flat, cells = _flat_index(indices, shape)
    k = indices.shape[-1]
    rows = xp.reshape(xp.astype(updates, inputs.dtype), (flat.shape[0], *shape[k:]))
    writer = last_writer(flat, cells)  # duplicates: the last update wins, as in NumPy
    base = xp.reshape(inputs, (cells, *shape[k:]))
    if rows.shape[0] == 0:
        return inputs
    new = xp.take(rows, xp.clip(writer, 0, None), axis=0)
    hit = xp.reshape(writer >= 0, (cells, *(1,) * (len(shape) - k)))
    return xp.reshape(xp.where(hit, new, base), shape)
