"""numpy: control flow as plain Python loops, structural updates on copies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.kit import Tensor, clamped_block

Flat = tuple[Tensor, ...]


def stop_gradient(x: Tensor) -> Tensor:
    return x


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    def forward(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)[0]

    return forward


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
