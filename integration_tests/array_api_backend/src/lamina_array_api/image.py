"""array API: the image primitives the core composes every image op from."""

from __future__ import annotations

from lamina.backend.kit import Tensor
from lamina_array_api._xp import index_grid, pad_constant, xp

__all__ = ["pad", "resample_axes"]


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = xp.moveaxis(xp.tensordot(xp.astype(w, x.dtype), x, axes=((1,), (axis,))), 0, axis)
    return x


def _source(n: int, before: int, after: int, mode: str) -> Tensor:
    """For each padded position along one axis, the input position it copies."""
    idx = index_grid(n + before + after) - before
    if mode == "edge":
        return xp.clip(idx, 0, n - 1)
    if mode == "reflect":  # mirrored about the edge sample, which is not repeated
        if n == 1:
            return xp.zeros_like(idx)
        m = xp.remainder(idx, 2 * n - 2)
        return xp.where(m < n, m, 2 * n - 2 - m)
    m = xp.remainder(idx, 2 * n)  # symmetric: the edge sample repeats
    return xp.where(m < n, m, 2 * n - 1 - m)


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return pad_constant(x, paddings, constant_value)
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            x = xp.take(x, _source(x.shape[axis], before, after, mode), axis=axis)
    return x
