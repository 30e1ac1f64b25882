"""numpy: control flow as plain Python loops, structural updates on copies."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.backend.kit import Tensor

Flat = tuple[Tensor, ...]
_slice = builtins.slice  # `slice` below is the op


def stop_gradient(x: Tensor) -> Tensor:
    return x


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    def forward(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)[0]

    return forward


def _clamped(inputs: Tensor, start_indices: Flat, shape: Sequence[int]) -> tuple[Any, ...]:
    """Starts wrapped (negative from the end) and clamped so the block fits, as jax does."""
    out = []
    for s, n, d in zip(start_indices, shape, inputs.shape):
        start = int(s)
        start = min(max(start + d if start < 0 else start, 0), d - n)
        out.append(_slice(start, start + n))
    return tuple(out)


def slice(inputs: Tensor, start_indices: Flat, shape: tuple[int, ...]) -> Tensor:
    return inputs[_clamped(inputs, start_indices, shape)]


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[_clamped(inputs, start_indices, updates.shape)] = updates
    return out


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    out = np.zeros(shape, values.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), values)
    return out


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[tuple(np.moveaxis(indices, -1, 0))] = updates
    return out
