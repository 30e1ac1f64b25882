"""torch: linear algebra."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from lamina.backend.kit import Tensor


def _as_matrices(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor, bool]:
    """`b` as a matrix with `a`'s broadcast batch dims.

    torch reads a `b` of shape ``a.shape[:-1]`` as a batch of vectors, where NumPy reads a
    matrix; equal ranks remove the ambiguity.
    """
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:]), vector


def cholesky(x: Tensor, upper: bool) -> Tensor:
    return torch.linalg.cholesky(x, upper=upper)


def det(x: Tensor) -> Tensor:
    return torch.linalg.det(x)


def eig(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = torch.linalg.eig(x)
    return w, v


def eigh(x: Tensor) -> tuple[Tensor, Tensor]:
    w, v = torch.linalg.eigh(x, UPLO="L")
    return w, v


def inv(x: Tensor) -> Tensor:
    return torch.linalg.inv(x)


def jvp(
    fun: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    has_aux: bool,
) -> tuple[Any, ...]:
    with warnings.catch_warnings():
        # Forward AD's first use loads decompositions through the deprecated torch.jit.script.
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return tuple(torch.func.jvp(fun, primals, tangents, has_aux=has_aux))


def lstsq(a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
    # torch.linalg.lstsq's CUDA driver assumes full rank; the pseudo-inverse does not.
    return torch.linalg.pinv(a, rtol=rcond) @ b


def lu_factor(x: Tensor) -> tuple[Tensor, Tensor]:
    lu, piv = torch.linalg.lu_factor(x)
    # LAPACK pivots are 1-based; SciPy's (and ours) are 0-based.
    return lu, piv - 1


def norm(x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
    if axis is None:
        return torch.linalg.vector_norm(x, dim=None, keepdim=keepdims)
    if len(axis) == 1:
        return torch.linalg.vector_norm(x, 2 if ord is None else ord, dim=axis, keepdim=keepdims)
    return torch.linalg.matrix_norm(x, "fro" if ord is None else ord, dim=axis, keepdim=keepdims)


def pinv(x: Tensor, rcond: float | None) -> Tensor:
    return torch.linalg.pinv(x, rtol=rcond)


def qr(x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
    q, r = torch.linalg.qr(x, mode=mode)
    return q, r


def slogdet(x: Tensor) -> tuple[Tensor, Tensor]:
    sign, logabsdet = torch.linalg.slogdet(x)
    return sign, logabsdet


def solve(a: Tensor, b: Tensor) -> Tensor:
    a, b, vector = _as_matrices(a, b)
    out = torch.linalg.solve(a, b)
    return out[..., 0] if vector else out


def solve_triangular(a: Tensor, b: Tensor, lower: bool) -> Tensor:
    a, b, vector = _as_matrices(a, b)
    out = torch.linalg.solve_triangular(a, b, upper=not lower)
    return out[..., 0] if vector else out


def svd(x: Tensor, full_matrices: bool, compute_uv: bool) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    if not compute_uv:
        return torch.linalg.svdvals(x)
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh
