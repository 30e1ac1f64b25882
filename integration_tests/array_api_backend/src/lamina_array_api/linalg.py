"""array API: linear algebra through the standard's ``linalg`` extension.

`lstsq`, `lu_factor`, `solve_triangular` and `cholesky_inverse` are not in the extension and
are written on it (pinv, a partial-pivoting elimination loop, a masked solve, inv).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.backend.kit import Tensor
from lamina_array_api._xp import index_grid, quiet, xp

__all__ = [
    "cholesky",
    "det",
    "eig",
    "eigh",
    "inv",
    "jvp",
    "lstsq",
    "lu_factor",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
]


def _adjoint(x: Tensor) -> Tensor:
    t = xp.matrix_transpose(x)
    return xp.conj(t) if xp.isdtype(x.dtype, "complex floating") else t


def cholesky(x: Tensor, upper: bool) -> Tensor:
    return xp.linalg.cholesky(x, upper=upper)


def det(x: Tensor) -> Tensor:
    return xp.linalg.det(x)


def eig(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = xp.linalg.eig(x)
    return w, v


def eigh(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = xp.linalg.eigh(x)
    return w, v


def inv(x: Tensor) -> Tensor:
    return xp.linalg.inv(x)


def jvp(
    fun: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    has_aux: bool,
) -> tuple[Any, ...]:
    raise NotImplementedError(
        "`jvp`: the array_api backend cannot differentiate (the array API standard has no "
        "automatic differentiation). Use the jax, torch or tensorflow backend."
    )


def lstsq(a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
    # The minimum-norm least-squares solution is pinv(a) @ b.
    return xp.linalg.pinv(a, rtol=rcond) @ b


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


def norm(x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    if axis is None:
        if ord is None:
            flat = xp.reshape(x, (-1,))
            out = xp.linalg.vector_norm(flat)
            return xp.reshape(out, (1,) * x.ndim) if keepdims else out
        axis = tuple(range(x.ndim))
    if len(axis) == 1:
        return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)
    a1, a2 = axis
    rest = [a for a in range(x.ndim) if a not in (a1, a2)]
    moved = xp.permute_dims(x, (*rest, a1, a2))
    out = xp.linalg.matrix_norm(moved, ord="fro" if ord is None else ord)
    if keepdims:
        out = xp.reshape(out, tuple(1 if a in axis else x.shape[a] for a in range(x.ndim)))
    return out


def pinv(x: Tensor, rcond: float | None) -> Tensor:
    return xp.linalg.pinv(x, rtol=rcond)


def qr(x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    q, r = xp.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    return q, r


def slogdet(x: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet = xp.linalg.slogdet(x)
    return sign, logabsdet


def solve(a: Tensor, b: Tensor) -> Tensor:
    return xp.linalg.solve(a, b)


def solve_triangular(a: Tensor, b: Tensor, lower: bool) -> Tensor:
    # No triangular solver in the extension: a general solve of the masked matrix.
    return xp.linalg.solve(xp.tril(a) if lower else xp.triu(a), b)


def svd(x: Tensor, full_matrices: bool, compute_uv: bool) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    if not compute_uv:
        return xp.linalg.svdvals(x)
    u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh
