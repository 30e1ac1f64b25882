"""array API: shape ops, joining, splitting, indexing and selection."""

from __future__ import annotations

import itertools
import math

import numpy as np

from lamina.backend.kit import DType, Tensor
from lamina_array_api._xp import as_dtype, const, index_grid, pad_constant, xp

__all__ = [
    "broadcast_to",
    "concatenate",
    "diag",
    "diagonal",
    "expand_dims",
    "flip",
    "get_item",
    "nonzero",
    "pad",
    "repeat",
    "reshape",
    "roll",
    "split",
    "squeeze",
    "stack",
    "take",
    "take_along_axis",
    "tile",
    "transpose",
    "unravel_index",
    "view",
    "where",
]


def reshape(x: Tensor, newshape: tuple[int, ...]) -> Tensor:
    return xp.reshape(x, tuple(newshape))


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return xp.broadcast_to(x, tuple(shape))


def expand_dims(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    for axis in sorted(axes):
        x = xp.expand_dims(x, axis=axis)
    return x


def squeeze(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return xp.squeeze(x, axis=tuple(axes)) if axes else x


def transpose(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return xp.permute_dims(x, tuple(axes))


def flip(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return xp.flip(x, axis=tuple(axes)) if axes else x


def roll(x: Tensor, shift: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return xp.roll(x, shift=tuple(shift), axis=tuple(axes))


def tile(x: Tensor, reps: tuple[int, ...]) -> Tensor:
    return xp.tile(x, tuple(reps))


def repeat(x: Tensor, repeats: int | tuple[int, ...], axis: int) -> Tensor:
    if isinstance(repeats, int):
        return xp.repeat(x, repeats, axis=axis)
    return xp.repeat(x, xp.asarray(list(repeats), dtype=xp.int64), axis=axis)


def concatenate(xs: list[Tensor], axis: int) -> Tensor:
    return xp.concat(list(xs), axis=axis)


def stack(xs: list[Tensor], axis: int) -> Tensor:
    return xp.stack(list(xs), axis=axis)


def _along(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    key: list[slice] = [slice(None)] * x.ndim
    key[axis] = slice(start, stop)
    return x[tuple(key)]


def split(x: Tensor, indices: tuple[int, ...], axis: int) -> list[Tensor]:
    bounds = [0, *indices, x.shape[axis]]
    return [_along(x, axis, a, max(a, b)) for a, b in itertools.pairwise(bounds)]


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    # The standard wants every dim indexed (or a trailing Ellipsis) and slices inside
    # bounds, so slices are resolved against the shape first.
    resolved: list[int | slice | None] = []
    dim = 0
    for k in key:
        if isinstance(k, slice):
            resolved.append(slice(*k.indices(x.shape[dim])))
            dim += 1
        else:
            resolved.append(k)
            dim += k is not None
    return x[(*resolved, Ellipsis)]


def _wrap(indices: Tensor, n: int) -> Tensor:
    indices = xp.astype(indices, xp.int64)
    return xp.where(indices < 0, indices + n, indices)


def take(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    # The standard's take accepts 1-D indices only: flatten, gather, restore the shape.
    idx = _wrap(indices, x.shape[axis])
    out = xp.take(x, xp.reshape(idx, (-1,)), axis=axis)
    shape = (*x.shape[:axis], *idx.shape, *x.shape[axis + 1 :])
    return xp.reshape(out, shape)


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    return xp.take_along_axis(x, _wrap(indices, x.shape[axis]), axis=axis)


def where(condition: Tensor, x1: Tensor, x2: Tensor) -> Tensor:
    return xp.where(condition, x1, x2)


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    if x.ndim == 0:
        return (xp.reshape(xp.nonzero(xp.reshape(x, (1,)))[0], (-1,)),)
    return tuple(xp.nonzero(x))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    out = []
    for i, dim in enumerate(shape):
        stride = math.prod(shape[i + 1 :])
        out.append((indices // const(indices, stride)) % const(indices, dim))
    return tuple(out)


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    return pad_constant(x, pad_width, value)


def diagonal(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    rest = [a for a in range(x.ndim) if a not in (axis1, axis2)]
    y = xp.permute_dims(x, (*rest, axis1, axis2))
    n1, n2 = y.shape[-2], y.shape[-1]
    r0, c0 = max(-offset, 0), max(offset, 0)
    length = max(0, min(n1 - r0, n2 - c0))
    flat = xp.reshape(y, (*y.shape[:-2], n1 * n2))
    steps = index_grid(length)
    return xp.take(flat, (steps + r0) * n2 + steps + c0, axis=-1)


def diag(x: Tensor, k: int) -> Tensor:
    if x.ndim == 2:
        return diagonal(x, k, 0, 1)
    n = x.shape[0] + abs(k)
    rows, cols = index_grid(n)[:, None], index_grid(n)[None, :]
    on = cols - rows == k
    source = xp.clip(rows if k >= 0 else cols, 0, max(x.shape[0] - 1, 0))
    source = xp.broadcast_to(source, (n, n))
    values = xp.reshape(xp.take(x, xp.reshape(source, (-1,)), axis=0), (n, n))
    return xp.where(on, values, xp.zeros_like(values))


def view(x: Tensor, dtype: DType) -> Tensor:
    # The standard has no bit-cast; its DLPack interchange lends the bytes to NumPy,
    # which reinterprets them, and the result comes back the same way.
    target = np.dtype(str(as_dtype(dtype)).rpartition(".")[2])
    host = np.ascontiguousarray(np.from_dlpack(x))
    return xp.asarray(host.view(target))


