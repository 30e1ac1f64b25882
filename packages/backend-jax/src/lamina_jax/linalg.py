"""jax: linear algebra."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg

from lamina.backend.kit import Tensor


def _adjoint(x: Tensor) -> Tensor:
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def cholesky(x: Tensor, upper: bool) -> Tensor:
    lower = jnp.linalg.cholesky(x)
    return _adjoint(lower) if upper else lower


def det(x: Tensor) -> Tensor:
    return jnp.linalg.det(x)


def eig(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = jnp.linalg.eig(x)
    return w, v


def eigh(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = jnp.linalg.eigh(x, UPLO="L")
    return w, v


def inv(x: Tensor) -> Tensor:
    return jnp.linalg.inv(x)


def jvp(
    fun: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    has_aux: bool,
) -> tuple[Any, ...]:
    return tuple(jax.jvp(fun, primals, tangents, has_aux=has_aux))


def lstsq(a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
    return jnp.linalg.lstsq(a, b, rcond=rcond)[0]


def lu_factor(x: Tensor) -> tuple[Tensor, Tensor]:
    lu, piv = jax.scipy.linalg.lu_factor(x)
    return lu, piv


def norm(x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def pinv(x: Tensor, rcond: float | None) -> Tensor:
    return jnp.linalg.pinv(x, rtol=rcond)


def qr(x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    q, r = jnp.linalg.qr(x, mode=mode)
    return q, r


def slogdet(x: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet = jnp.linalg.slogdet(x)
    return sign, logabsdet


def solve(a: Tensor, b: Tensor) -> Tensor:
    return jnp.linalg.solve(a, b)


def solve_triangular(a: Tensor, b: Tensor, lower: bool) -> Tensor:
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    out = jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=lower)
    return out[..., 0] if vector else out


def svd(x: Tensor, full_matrices: bool, compute_uv: bool) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    if not compute_uv:
        return jnp.linalg.svd(x, compute_uv=False)
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh
