"""jax: creation ops."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor

__all__ = [
    "arange",
    "copy",
    "eye",
    "full",
    "full_like",
    "geomspace",
    "linspace",
    "logspace",
    "meshgrid",
    "ones",
    "tri",
    "zeros",
]


def zeros(shape: tuple[int, ...], dtype: DType) -> Tensor:
    return jnp.zeros(shape, dtype=dtype)


def ones(shape: tuple[int, ...], dtype: DType) -> Tensor:
    return jnp.ones(shape, dtype=dtype)


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    return jnp.full(shape, fill_value, dtype=dtype)


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    return jnp.full(jnp.shape(x), fill_value, dtype=dtype)


def eye(N: int, M: int, k: int, dtype: DType) -> Tensor:
    return jnp.eye(N, M, k, dtype=dtype)


def tri(N: int, M: int, k: int, dtype: DType) -> Tensor:
    return jnp.tri(N, M, k, dtype=dtype)


def copy(x: Tensor) -> Tensor:
    return jnp.array(x, copy=True)


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    return jnp.arange(start, stop, step, dtype=dtype)


def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    samples, step = jnp.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
    return samples, step


def logspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, base: float, axis: int
) -> Tensor:
    return jnp.logspace(start, stop, num, endpoint, base, axis=axis)


def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    return jnp.geomspace(start, stop, num, endpoint, axis=axis)


def meshgrid(xs: list[Tensor], indexing: str) -> list[Tensor]:
    return list(jnp.meshgrid(*xs, indexing=indexing))
