"""jax: linear algebra, forwarded to `jax.numpy.linalg` (`kit.NumpyStyleLinalg`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg

from lamina.backend.kit import NumpyStyleLinalg, Pytrees, Tensor


class JaxLinalg(NumpyStyleLinalg):
    def jvp(
        self, fun: Callable[..., Any], primals: Pytrees, tangents: Pytrees, has_aux: bool
    ) -> Pytrees:
        return tuple(jax.jvp(fun, primals, tangents, has_aux=has_aux))

    def lstsq(self, a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
        # Native kernel: XLA's SVD-based least squares, without forming the pseudo-inverse.
        return jnp.linalg.lstsq(a, b, rcond=rcond)[0]

    def lu_factor(self, x: Tensor) -> tuple[Tensor, Tensor]:
        lu, piv = jax.scipy.linalg.lu_factor(x)
        return lu, piv

    def batched_matrices(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return jnp.broadcast_to(a, batch + a.shape[-2:]), jnp.broadcast_to(b, batch + b.shape[-2:])

    def solve_triangular(self, a: Tensor, b: Tensor, lower: bool) -> Tensor:
        # Native kernel: XLA's triangular solve (it does not broadcast batch dims).
        return self.solve_with(
            lambda m, v: jax.lax.linalg.triangular_solve(m, v, left_side=True, lower=lower), a, b
        )


ops = JaxLinalg(jnp.linalg)
"""The backend's `linalg` namespace."""
