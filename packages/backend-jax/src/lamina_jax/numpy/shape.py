"""jax: shape ops."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

# A library function that computes what a protocol member promises is bound to the
# member's name (the core passes the arguments positionally).
reshape = jnp.reshape
broadcast_to = jnp.broadcast_to
expand_dims = jnp.expand_dims
squeeze = jnp.squeeze
transpose = jnp.transpose
flip = jnp.flip
roll = jnp.roll
tile = jnp.tile


def repeat(x: Tensor, repeats: int | tuple[int, ...], axis: int) -> Tensor:
    if isinstance(repeats, tuple):
        # A static total keeps per-element repeats usable under jit.
        return jnp.repeat(x, jnp.asarray(repeats), axis, total_repeat_length=sum(repeats))
    return jnp.repeat(x, repeats, axis)


concatenate = jnp.concatenate
stack = jnp.stack


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


where = jnp.where


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    return tuple(jnp.nonzero(x))


def unravel_index(indices: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    return tuple(jnp.unravel_index(indices, shape))


def pad(x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor) -> Tensor:
    return jnp.pad(x, pad_width, constant_values=value)


diag = jnp.diag
diagonal = jnp.diagonal


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
