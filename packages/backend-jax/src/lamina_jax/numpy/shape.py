"""jax: shape ops."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor, to_numpy_dtype


def reshape(x: Tensor, newshape: tuple[int, ...]) -> Tensor:
    return jnp.reshape(x, newshape)


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return jnp.broadcast_to(x, shape)


def expand_dims(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return jnp.expand_dims(x, axes)


def squeeze(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return jnp.squeeze(x, axes)


def transpose(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return jnp.transpose(x, axes)


def flip(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    return jnp.flip(x, axes)


def roll(x: Tensor, shift: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    return jnp.roll(x, shift, axes)


def tile(x: Tensor, reps: tuple[int, ...]) -> Tensor:
    return jnp.tile(x, reps)


def repeat(x: Tensor, repeats: int | tuple[int, ...], axis: int) -> Tensor:
    if isinstance(repeats, tuple):
        # A static total keeps per-element repeats usable under jit.
        return jnp.repeat(x, jnp.asarray(repeats), axis, total_repeat_length=sum(repeats))
    return jnp.repeat(x, repeats, axis)


def concatenate(xs: list[Tensor], axis: int) -> Tensor:
    return jnp.concatenate(xs, axis)


def stack(xs: list[Tensor], axis: int) -> Tensor:
    return jnp.stack(xs, axis)


def split(x: Tensor, indices: tuple[int, ...], axis: int) -> list[Tensor]:
    return list(jnp.split(x, list(indices), axis))


def get_item(x: Tensor, key: tuple[int | slice | None, ...]) -> Tensor:
    return x[key]


def take(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    # jnp.take fills out-of-range indices with NaN by default; wrap negatives, clip the rest.
    n = x.shape[axis]
    indices = jnp.where(indices < 0, indices + n, indices)
    return jnp.take(x, indices, axis, mode="clip")


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    n = x.shape[axis]
    indices = jnp.where(indices < 0, indices + n, indices)
    return jnp.take_along_axis(x, indices, axis, mode="clip")


def where(condition: Tensor, x1: Tensor, x2: Tensor) -> Tensor:
    return jnp.where(condition, x1, x2)


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    return tuple(jnp.nonzero(x))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    return tuple(jnp.unravel_index(indices, shape))


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    return jnp.pad(x, pad_width, constant_values=value)


def diag(x: Tensor, k: int) -> Tensor:
    return jnp.diag(x, k)


def diagonal(x: Tensor, offset: int, axis1: int, axis2: int) -> Tensor:
    return jnp.diagonal(x, offset, axis1, axis2)


def _bitcast(x: Tensor, dtype: DType) -> Tensor:
    # lax.bitcast_convert_type adds (or needs) a trailing axis when item sizes differ.
    target = to_numpy_dtype(dtype)
    old, new = x.dtype.itemsize, target.itemsize
    if old > new:
        out = jax.lax.bitcast_convert_type(x, target)
        return jnp.reshape(out, x.shape[:-1] + (-1,))
    if old < new:
        x = jnp.reshape(x, x.shape[:-1] + (-1, new // old))
    return jax.lax.bitcast_convert_type(x, target)


def view(x: Tensor, dtype: DType) -> Tensor:
    if x.dtype == jnp.bool_:
        # XLA cannot bitcast bool; a bool's byte is its 0/1 value.
        x = x.astype(jnp.uint8)
    if dtype == "bool":
        return _bitcast(x, "uint8") != 0
    return _bitcast(x, dtype)


