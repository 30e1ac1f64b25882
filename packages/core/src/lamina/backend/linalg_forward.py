"""`NumpyStyleLinalg`: the part of `LinalgOps` that a NumPy-style ``linalg`` namespace gives.

NumPy, JAX, PyTorch and the array API standard name most decompositions alike
(``det``, ``eigh``, ``qr``, ``svd``...), so an adapter forwards to its library here and
defines only what its library lacks or names otherwise. `lu_factor` and `solve_triangular`
have no common form and are left to the subclass (mypy checks that it completes
`LinalgOps` where the instance is handed to `ModuleBackend`); `jvp` here refuses, as a
library without automatic differentiation must.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.backend.protocols._types import Pytrees, Tensor


class NumpyStyleLinalg:
    """Forwards `LinalgOps` members to `library` (e.g. ``jnp.linalg``, ``torch.linalg``).

    Example:
        >>> import numpy as np
        >>> from lamina.backend.kit import NumpyStyleLinalg
        >>> NumpyStyleLinalg(np.linalg).det(np.eye(2))
        np.float64(1.0)
    """

    def __init__(self, library: Any) -> None:
        self.library = library

    def result(self, x: Any) -> Tensor:
        """A library result as this backend's tensor (NumPy returns scalars for 0-d)."""
        return x

    def cholesky(self, x: Tensor, upper: bool) -> Tensor:
        return self.library.cholesky(x, upper=upper)

    def det(self, x: Tensor) -> Tensor:
        return self.result(self.library.det(x))

    def eig(self, x: Tensor) -> tuple[Tensor, Tensor]:
        w, v = self.library.eig(x)
        return w, v

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        w, v = self.library.eigh(x)  # the lower triangle, every library's default
        return w, v

    def jvp(
        self, fun: Callable[..., Any], primals: Pytrees, tangents: Pytrees, has_aux: bool
    ) -> Pytrees:
        """Refuses: override it where the library differentiates (jax.jvp, torch.func.jvp)."""
        from lamina.backend import backend

        raise NotImplementedError(
            f"`jvp`: the {backend()} backend cannot differentiate (its array library has no "
            "automatic differentiation). Use the jax, torch or tensorflow backend."
        )

    def inv(self, x: Tensor) -> Tensor:
        return self.library.inv(x)

    def lstsq(self, a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
        # The minimum-norm least-squares solution; exact where the library's own driver
        # assumes full rank (PyTorch's on CUDA).
        return self.pinv(a, rcond) @ b

    def norm(self, x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
        return self.result(self.library.norm(x, ord=ord, axis=axis, keepdims=keepdims))

    def pinv(self, x: Tensor, rcond: float | None) -> Tensor:
        return self.library.pinv(x, rtol=rcond)

    def qr(self, x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
        q, r = self.library.qr(x, mode=mode)
        return q, r

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        sign, logabsdet = self.library.slogdet(x)
        return self.result(sign), self.result(logabsdet)

    def solve(self, a: Tensor, b: Tensor) -> Tensor:
        return self.library.solve(a, b)

    def batched_matrices(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        """`a` and `b` broadcast to their common batch dims, for `solve_with`; a library whose
        solvers broadcast keeps this default, which returns them unchanged."""
        return a, b

    def solve_with(
        self, solver: Callable[[Tensor, Tensor], Tensor], a: Tensor, b: Tensor
    ) -> Tensor:
        """``solver(a, b)`` with NumPy's reading of `b`: a 1-D `b` is one vector, any other a
        batch of matrices (broadcast by `batched_matrices`), for solvers that read a `b` of
        shape ``a.shape[:-1]`` as a batch of vectors or do not broadcast."""
        vector = b.ndim == 1
        if vector:
            b = b[:, None]
        a, b = self.batched_matrices(a, b)
        out = solver(a, b)
        return out[..., 0] if vector else out

    def svd(
        self, x: Tensor, full_matrices: bool, compute_uv: bool
    ) -> Tensor | tuple[Tensor, Tensor, Tensor]:
        if not compute_uv:
            return self.library.svdvals(x)
        u, s, vh = self.library.svd(x, full_matrices=full_matrices)
        return u, s, vh
