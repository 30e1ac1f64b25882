"""Products and contractions: matmul, dot, einsum, tensordot and kin."""

from __future__ import annotations

from typing import Protocol

from ._types import Tensor


class NumpyLinearOps(Protocol):
    """Products and contractions: matmul, dot, einsum, tensordot and kin.

    Inputs arrive converted and promoted to one dtype; axes arrive non-negative.

    Composites the core writes once on these primitives (`lamina.ops.composites.numpy`):
    `inner`, `kron`, `outer`, `trace`, `trapezoid`, `vander`, `vdot`. A backend may still
    define one, with the same signature, where a native kernel is faster; the core then
    calls it.
    """

    def matmul(self, x1: Tensor, x2: Tensor) -> Tensor: ...
    def cross(self, x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor: ...
    def correlate(self, x1: Tensor, x2: Tensor, mode: str) -> Tensor: ...
    def dot(self, x1: Tensor, x2: Tensor) -> Tensor: ...
    def einsum(self, subscripts: str, *operands: Tensor) -> Tensor: ...
    def tensordot(
        self, x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]
    ) -> Tensor: ...
