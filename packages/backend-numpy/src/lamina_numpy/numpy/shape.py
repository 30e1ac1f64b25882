"""NumPy: shape ops."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
reshape = np.reshape


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return np.array(np.broadcast_to(x, shape))


expand_dims = np.expand_dims
squeeze = np.squeeze
transpose = np.transpose
flip = np.flip
roll = np.roll
tile = np.tile
repeat = np.repeat
concatenate = np.concatenate
stack = np.stack
split = np.split  # a list of arrays, at the offsets `indices`


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    return np.asarray(x[key])


take = np.take
take_along_axis = np.take_along_axis
where = np.where


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    return tuple(np.nonzero(x))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    return tuple(np.unravel_index(indices, shape))


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    return np.pad(x, pad_width, constant_values=value)


def diag(x: Tensor, k: int) -> Tensor:
    return np.array(np.diag(x, k))


def diagonal(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    return np.array(np.diagonal(x, offset, axis1, axis2))


def view(x: Tensor, dtype: DType) -> Tensor:
    return np.ascontiguousarray(x).view(to_numpy_dtype(dtype))
