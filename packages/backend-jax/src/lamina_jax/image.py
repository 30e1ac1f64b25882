"""JAX: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import jax
import jax.numpy as jnp

from lamina.backend.kit import Tensor

_F = TypeVar("_F", bound=Callable[..., Any])


def _jitted(*static: str) -> Callable[[_F], _F]:
    """Compile the whole primitive once per static configuration: eager JAX would
    dispatch (and compile) every small slice and gather separately."""

    def wrap(fn: _F) -> _F:
        return cast(_F, jax.jit(fn, static_argnames=static))

    return wrap


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = jnp.moveaxis(jnp.tensordot(w, x, axes=([1], [axis])), 0, axis)
    return x


@_jitted("paddings", "mode", "constant_value")
def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        return jnp.pad(x, paddings, mode="constant", constant_values=constant_value)
    return jnp.pad(x, paddings, mode=mode)
