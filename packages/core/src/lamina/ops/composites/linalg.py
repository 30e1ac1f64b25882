"""`linalg` composites: what a solve or a factorization gives once more."""

from __future__ import annotations

from lamina.ops.composites.math import cholesky_inverse, matrix_rank

__all__ = ["cholesky_inverse", "matrix_rank"]
