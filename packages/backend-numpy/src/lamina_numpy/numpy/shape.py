"""NumPy: shape ops."""

from __future__ import annotations

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def reshape(x: Tensor, newshape: tuple[int, ...]) -> Tensor:
    return np.reshape(x, newshape)


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return np.array(np.broadcast_to(x, shape))


def expand_dims(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return np.expand_dims(x, axes)


def squeeze(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return np.squeeze(x, axes)


def transpose(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return np.transpose(x, axes)


def flip(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return np.flip(x, axes)


def roll(x: Tensor, shift: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return np.roll(x, shift, axes)


def tile(x: Tensor, reps: tuple[int, ...]) -> Tensor:
    return np.tile(x, reps)


def repeat(x: Tensor, repeats: int | tuple[int, ...], axis: int) -> Tensor:
    return np.repeat(x, repeats, axis)


def concatenate(xs: list[Tensor], axis: int) -> Tensor:
    return np.concatenate(xs, axis)


def stack(xs: list[Tensor], axis: int) -> Tensor:
    return np.stack(xs, axis)


def split(x: Tensor, indices: tuple[int, ...], axis: int) -> list[Tensor]:
    return list(np.split(x, indices, axis))


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    return np.asarray(x[key])


def take(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    return np.take(x, indices, axis)


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    return np.take_along_axis(x, indices, axis)


def where(condition: Tensor, x1: Tensor, x2: Tensor) -> Tensor:
    return np.where(condition, x1, x2)


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


