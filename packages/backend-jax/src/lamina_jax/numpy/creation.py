"""jax: creation ops."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from lamina.backend.kit import DType, Tensor


def full(shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor:
    return jnp.full(shape, fill_value, dtype=dtype)


def full_like(x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
    return jnp.full(jnp.shape(x), fill_value, dtype=dtype)


def copy(x: Tensor) -> Tensor:
    return jnp.array(x, copy=True)


def arange(start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
    return jnp.arange(start, stop, step, dtype=dtype)


def linspace(
    start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
) -> tuple[Tensor, Tensor]:
    samples, step = jnp.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
    return samples, step


def geomspace(start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int) -> Tensor:
    return jnp.geomspace(start, stop, num, endpoint, axis=axis)
