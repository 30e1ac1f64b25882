"""NumPy: linear algebra, forwarded to `numpy.linalg` (`kit.NumpyStyleLinalg`), with SciPy
for the LU factorization."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.backend.kit import NumpyStyleLinalg, Tensor


class NumpyLinalg(NumpyStyleLinalg):
    def result(self, x: Any) -> Tensor:
        return np.asarray(x)  # 0-d results come back as NumPy scalars

    def lstsq(self, a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
        # Native kernel: LAPACK's gelsd, without forming the pseudo-inverse.
        return np.linalg.lstsq(a, b, rcond=rcond)[0]

    def lu_factor(self, x: Tensor) -> tuple[Tensor, Tensor]:
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

    def pinv(self, x: Tensor, rcond: float | None) -> Tensor:
        return np.linalg.pinv(x, rcond=rcond)  # NumPy's own default cutoff when None

    def solve_triangular(self, a: Tensor, b: Tensor, lower: bool) -> Tensor:
        # scipy's solve_triangular takes no batches; a masked general solve does.
        return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)


ops = NumpyLinalg(np.linalg)
"""The backend's `linalg` namespace."""
