"""torch: linear algebra, forwarded to `torch.linalg` (`kit.NumpyStyleLinalg`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from lamina.backend.kit import NumpyStyleLinalg, Pytrees, Tensor


class TorchLinalg(NumpyStyleLinalg):
    def jvp(
        self, fun: Callable[..., Any], primals: Pytrees, tangents: Pytrees, has_aux: bool
    ) -> Pytrees:
        with warnings.catch_warnings():
            # Forward AD's first use loads decompositions through the deprecated
            # torch.jit.script.
            warnings.filterwarnings(
                "ignore", "`torch.jit.script` is deprecated", DeprecationWarning
            )
            return tuple(torch.func.jvp(fun, primals, tangents, has_aux=has_aux))

    def lu_factor(self, x: Tensor) -> tuple[Tensor, Tensor]:
        lu, piv = torch.linalg.lu_factor(x)
        # LAPACK pivots are 1-based; SciPy's (and ours) are 0-based.
        return lu, piv - 1

    def norm(self, x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
        # torch.linalg.norm's `ord` rules differ from NumPy's: call the vector or matrix
        # kernel that `axis` asks for.
        if axis is None:
            return torch.linalg.vector_norm(x, dim=None, keepdim=keepdims)
        if len(axis) == 1:
            return torch.linalg.vector_norm(
                x, 2 if ord is None else ord, dim=axis, keepdim=keepdims
            )
        return torch.linalg.matrix_norm(
            x, "fro" if ord is None else ord, dim=axis, keepdim=keepdims
        )

    def batched_matrices(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        # torch reads a `b` of shape ``a.shape[:-1]`` as a batch of vectors, where NumPy reads
        # a matrix; equal ranks remove the ambiguity.
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:])

    def solve(self, a: Tensor, b: Tensor) -> Tensor:
        return self.solve_with(torch.linalg.solve, a, b)

    def solve_triangular(self, a: Tensor, b: Tensor, lower: bool) -> Tensor:
        return self.solve_with(
            lambda m, v: torch.linalg.solve_triangular(m, v, upper=not lower), a, b
        )


ops = TorchLinalg(torch.linalg)
"""The backend's `linalg` namespace."""
