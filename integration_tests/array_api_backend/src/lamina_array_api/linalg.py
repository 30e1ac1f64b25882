"""array API: linear algebra through the standard's ``linalg`` extension (`kit.NumpyStyleLinalg`
forwards what it names like NumPy).

`lstsq`, `lu_factor`, `solve_triangular` and `cholesky_inverse` are not in the extension and
are written on it (pinv, a partial-pivoting elimination loop, a masked solve, inv).
"""

from __future__ import annotations

from typing import Any

from lamina.backend.kit import NumpyStyleLinalg, Tensor
from lamina_array_api._xp import index_grid, quiet, xp

__all__ = ["ArrayApiLinalg", "lu_factor", "ops"]


@quiet
def lu_factor(x: Tensor) -> tuple[Tensor, Tensor]:
    n = x.shape[-1]
    a = x
    rows = index_grid(n)
    pivots = []
    for k in range(n):
        p = xp.argmax(xp.abs(a[..., k:, k]), axis=-1) + k  # partial pivoting
        pivots.append(p)
        swap = xp.where(rows == k, p[..., None], xp.where(rows == p[..., None], k, rows))
        a = xp.take_along_axis(a, xp.broadcast_to(swap[..., None], a.shape), axis=-2)
        pivot = a[..., k, k][..., None]
        column = a[..., k + 1 :, k]
        factors = xp.where(pivot == 0, column, column / xp.where(pivot == 0, 1, pivot))
        rest = a[..., k + 1 :, k + 1 :] - factors[..., :, None] * a[..., k, k + 1 :][..., None, :]
        lower = xp.concat([a[..., k + 1 :, :k], factors[..., None], rest], axis=-1)
        a = xp.concat([a[..., : k + 1, :], lower], axis=-2)
    piv = xp.stack(pivots, axis=-1) if pivots else xp.zeros(x.shape[:-1], dtype=xp.int64)
    return a, xp.astype(piv, xp.int32)


class ArrayApiLinalg(NumpyStyleLinalg):
    def lu_factor(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return lu_factor(x)

    def norm(self, x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
        if axis is None:
            if ord is None:
                flat = xp.reshape(x, (-1,))
                out = xp.linalg.vector_norm(flat)
                return xp.reshape(out, (1,) * x.ndim) if keepdims else out
            axis = tuple(range(x.ndim))
        if len(axis) == 1:
            return xp.linalg.vector_norm(
                x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord
            )
        a1, a2 = axis
        rest = [a for a in range(x.ndim) if a not in (a1, a2)]
        moved = xp.permute_dims(x, (*rest, a1, a2))
        out = xp.linalg.matrix_norm(moved, ord="fro" if ord is None else ord)
        if keepdims:
            out = xp.reshape(out, tuple(1 if a in axis else x.shape[a] for a in range(x.ndim)))
        return out

    def solve_triangular(self, a: Tensor, b: Tensor, lower: bool) -> Tensor:
        # No triangular solver in the extension: a general solve of the masked matrix.
        return xp.linalg.solve(xp.tril(a) if lower else xp.triu(a), b)


ops = ArrayApiLinalg(xp.linalg)
"""The backend's `linalg` namespace."""
