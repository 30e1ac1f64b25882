"""array API: products and contractions (einsum, kron, correlate written on matmul)."""

from __future__ import annotations

from lamina.backend.kit import Tensor, correlation_window
from lamina_array_api._einsum import einsum as einsum
from lamina_array_api._xp import index_grid, pad_constant, xp

__all__ = [
    "correlate",
    "cross",
    "dot",
    "einsum",
    "matmul",
    "tensordot",
]


def matmul(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.dtype == xp.bool:  # the standard multiplies numbers only
        return xp.astype(xp.astype(x1, xp.int64) @ xp.astype(x2, xp.int64), xp.bool)
    return xp.matmul(x1, x2)


def cross(x1: Tensor, x2: Tensor, axisa: int, axisb: int, axisc: int) -> Tensor:
    a, b = xp.moveaxis(x1, axisa, -1), xp.moveaxis(x2, axisb, -1)
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]

    def three(v: Tensor) -> list[Tensor]:
        parts = [v[..., i] for i in range(v.shape[-1])]
        return parts + [xp.zeros_like(parts[0])] * (3 - len(parts))

    (a0, a1, a2), (b0, b1, b2) = three(a), three(b)
    out = xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return xp.moveaxis(out, -1, axisc)


def correlate(x1: Tensor, x2: Tensor, mode: str) -> Tensor:
    m, n = x1.shape[0], x2.shape[0]
    v = xp.conj(x2) if xp.isdtype(x2.dtype, "complex floating") else x2
    # Full correlation: lag k from -(n - 1) to m - 1, c[k] = sum_j x1[j + k] * v[j].
    padded = pad_constant(x1, ((n - 1, n - 1),))
    windows = index_grid(m + n - 1)[:, None] + index_grid(n)[None, :]
    full = xp.take(padded, xp.reshape(windows, (-1,)), axis=0)
    full = xp.reshape(full, (m + n - 1, n)) @ v
    return full[correlation_window(m, n, mode)]


def dot(x1: Tensor, x2: Tensor) -> Tensor:
    if x1.ndim == 0 or x2.ndim == 0:
        return x1 * x2
    if x2.ndim == 1:
        return xp.tensordot(x1, x2, axes=((x1.ndim - 1,), (0,)))
    return xp.tensordot(x1, x2, axes=((x1.ndim - 1,), (x2.ndim - 2,)))


def tensordot(x1: Tensor, x2: Tensor, axes: tuple[tuple[int, ...], tuple[int, ...]]) -> Tensor:
    return xp.tensordot(x1, x2, axes=(tuple(axes[0]), tuple(axes[1])))
