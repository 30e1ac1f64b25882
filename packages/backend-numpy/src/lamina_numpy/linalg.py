"""NumPy: linear algebra (with SciPy for the LU factorization)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

import numpy as np

from lamina.backend.kit import Tensor


def _adjoint(x: Tensor) -> Tensor:
    return np.conj(np.swapaxes(x, -1, -2))


def cholesky(x: Tensor, upper: bool) -> Tensor:
    lower = np.linalg.cholesky(x)
    return _adjoint(lower) if upper else lower


def det(x: Tensor) -> Tensor:
    return np.asarray(np.linalg.det(x))


def eig(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = np.linalg.eig(x)
    return w, v


def eigh(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = np.linalg.eigh(x, UPLO="L")
    return w, v


def inv(x: Tensor) -> Tensor:
    return np.linalg.inv(x)


def jvp(
    fun: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    has_aux: bool,
) -> tuple[Any, ...]:
    raise NotImplementedError(
        "`jvp`: the numpy backend cannot differentiate. Use the jax, torch or tensorflow backend."
    )


def lstsq(a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
    return np.linalg.lstsq(a, b, rcond=rcond)[0]


def lu_factor(x: Tensor) -> tuple[Tensor, Tensor]:
    import scipy.linalg

    # scipy.linalg.lu_factor takes one matrix at a time.
    flat = x.reshape((-1, *x.shape[-2:]))
    lus, pivs = [], []
    for m in flat:
        lu, piv = scipy.linalg.lu_factor(m, check_finite=False)
        lus.append(lu)
        pivs.append(piv)
    lu_out = np.stack(lus).reshape(x.shape) if lus else np.zeros_like(x)
    piv_out = np.stack(pivs) if pivs else np.zeros((0, x.shape[-1]), np.int32)
    return lu_out.astype(x.dtype), piv_out.reshape(x.shape[:-1]).astype(np.int32)


def norm(x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    return np.asarray(np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims))


def pinv(x: Tensor, rcond: float | None) -> Tensor:
    return np.linalg.pinv(x, rcond=rcond)


def qr(x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    q, r = np.linalg.qr(x, mode=cast(Literal["reduced", "complete"], mode))
    return q, r


def slogdet(x: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabsdet)


def solve(a: Tensor, b: Tensor) -> Tensor:
    return np.linalg.solve(a, b)


def solve_triangular(a: Tensor, b: Tensor, lower: bool) -> Tensor:
    # scipy's solve_triangular takes no batches; a masked general solve does.
    return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)


def svd(x: Tensor, full_matrices: bool, compute_uv: bool) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    if not compute_uv:
        return np.linalg.svd(x, compute_uv=False)
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh
