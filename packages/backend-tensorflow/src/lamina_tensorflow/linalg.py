"""tensorflow: linear algebra on `tf.linalg` (`kit.NumpyStyleLinalg` forwards what it names
like NumPy: det, eig, eigh, inv, slogdet)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from lamina.backend.kit import NumpyStyleLinalg, Pytrees, Tensor


def _svals(x: Tensor, axes: tuple[int, int]) -> Tensor:
    rank = x.shape.rank
    perm = [i for i in range(rank) if i not in axes] + list(axes)
    return tf.linalg.svd(tf.transpose(x, perm), compute_uv=False)


class TensorflowLinalg(NumpyStyleLinalg):
    def cholesky(self, x: Tensor, upper: bool) -> Tensor:
        lower = tf.linalg.cholesky(x)
        return tf.linalg.adjoint(lower) if upper else lower

    def jvp(
        self, fun: Callable[..., Any], primals: Pytrees, tangents: Pytrees, has_aux: bool
    ) -> Pytrees:
        with tf.autodiff.ForwardAccumulator(list(primals), list(tangents)) as acc:
            result = fun(*primals)
        out, aux = result if has_aux else (result, None)
        tangent_out = tf.nest.map_structure(
            lambda t: acc.jvp(t, unconnected_gradients=tf.UnconnectedGradients.ZERO), out
        )
        return (out, tangent_out, aux) if has_aux else (out, tangent_out)

    def lstsq(self, a: Tensor, b: Tensor, rcond: float | None) -> Tensor:
        # tf.linalg.lstsq regularizes rather than cutting singular values: use the pseudo-inverse.
        p = tf.linalg.pinv(a, rcond=rcond)
        return tf.linalg.matvec(p, b) if b.shape.rank == 1 else tf.linalg.matmul(p, b)

    def lu_factor(self, x: Tensor) -> tuple[Tensor, Tensor]:
        lu, perm = tf.linalg.lu(x)
        # tf returns the final row permutation; LAPACK-style pivots are the swaps that build it.
        n = x.shape[-1]
        perm = tf.cast(perm, tf.int32)
        index = tf.range(n, dtype=tf.int32)
        cur = tf.broadcast_to(index, tf.shape(perm))
        pivots = []
        for i in range(n):
            j = tf.argmax(tf.cast(tf.equal(cur, perm[..., i : i + 1]), tf.int32), axis=-1)
            j = tf.cast(j, tf.int32)
            pivots.append(j)
            at_i = cur[..., i : i + 1]
            at_j = tf.gather(cur, j[..., None], batch_dims=perm.shape.rank - 1)
            cur = tf.where(index == i, at_j, tf.where(index == j[..., None], at_i, cur))
        piv = tf.stack(pivots, axis=-1) if pivots else tf.zeros_like(perm)
        return lu, piv

    def norm(self, x: Tensor, ord: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Tensor:
        # tf.norm lacks several NumPy orders (nuc, ±2 for matrices, 0 and negatives for vectors).
        a = tf.abs(x)
        if axis is None or ord is None or ord == "fro" or (len(axis) == 1 and ord == 2):
            return tf.sqrt(tf.reduce_sum(a * a, axis=axis, keepdims=keepdims))
        if len(axis) == 1:
            ax = axis[0]
            if ord == math.inf:
                return tf.reduce_max(a, axis=ax, keepdims=keepdims)
            if ord == -math.inf:
                return tf.reduce_min(a, axis=ax, keepdims=keepdims)
            if ord == 0:
                return tf.reduce_sum(tf.cast(a != 0, a.dtype), axis=ax, keepdims=keepdims)
            p = tf.cast(ord, a.dtype)
            return tf.pow(tf.reduce_sum(tf.pow(a, p), axis=ax, keepdims=keepdims), 1 / p)
        row, col = axis
        if ord in ("nuc", 2, -2):
            s = _svals(x, (row, col))
            reduce = {"nuc": tf.reduce_sum, 2: tf.reduce_max, -2: tf.reduce_min}[ord]
            out = reduce(s, axis=-1)
            if keepdims:
                for ax in sorted(axis):
                    out = tf.expand_dims(out, ax)
            return out
        first, second = (row, col) if ord in (1, -1) else (col, row)
        pick = tf.reduce_max if ord in (1, math.inf) else tf.reduce_min
        out = pick(tf.reduce_sum(a, axis=first, keepdims=True), axis=second, keepdims=True)
        return out if keepdims else tf.squeeze(out, axis=list(axis))

    def pinv(self, x: Tensor, rcond: float | None) -> Tensor:
        return tf.linalg.pinv(x, rcond=rcond)

    def qr(self, x: Tensor, mode: str) -> tuple[Tensor, Tensor]:
        q, r = tf.linalg.qr(x, full_matrices=mode == "complete")
        return q, r

    def batched_matrices(self, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        # MatrixSolve does not broadcast.
        batch = tf.broadcast_static_shape(a.shape[:-2], b.shape[:-2]).as_list()
        a = tf.broadcast_to(a, batch + a.shape[-2:].as_list())
        b = tf.broadcast_to(b, batch + b.shape[-2:].as_list())
        return a, b

    def solve(self, a: Tensor, b: Tensor) -> Tensor:
        return self.solve_with(tf.linalg.solve, a, b)

    def solve_triangular(self, a: Tensor, b: Tensor, lower: bool) -> Tensor:
        return self.solve_with(lambda m, v: tf.linalg.triangular_solve(m, v, lower=lower), a, b)

    def svd(
        self, x: Tensor, full_matrices: bool, compute_uv: bool
    ) -> Tensor | tuple[Tensor, Tensor, Tensor]:
        if not compute_uv:
            return tf.linalg.svd(x, compute_uv=False)
        s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
        return u, s, tf.linalg.adjoint(v)


ops = TensorflowLinalg(tf.linalg)
"""The backend's `linalg` namespace."""
