"""Linear solves, pseudo-inverses, ranks, norms and forward-mode derivatives."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from lamina.backend.capabilities import Capability
from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.linalg._common import (
    check_matrix,
    compute_dtype,
    eps,
    float_dtype,
    restore,
    square_shape,
)
from lamina.ops.shapes import Shape, broadcast_shapes, canonical_axes, reduced_shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["jvp", "lstsq", "matrix_rank", "norm", "pinv", "solve", "solve_triangular"]


def _joint_float(op: str, a: Any, b: Any) -> str:
    try:
        dtype = dtypes.result_type(float_dtype(op, a, "a"), float_dtype(op, b, "b"))
    except ValueError as e:
        raise TypeError(f"`{op}`: {e}") from None
    return dtype


class Solve(Op):
    """``a @ x = b`` for square `a`; a 1-D `b` is one right-hand side."""

    def output_shape(self, a: Any, b: Any) -> Shape:
        sa = square_shape(self.op_name, a, "a")
        sb = static_shape(b)
        n = sa[-1]
        if len(sb) == 1:
            if n is not None and sb[0] is not None and sb[0] != n:
                raise ValueError(
                    f"`{self.op_name}`: `b` must have as many rows as `a`. "
                    f"Received: a.shape={sa}, b.shape={sb}"
                )
            return (*sa[:-2], n if n is not None else sb[0])
        check_matrix(self.op_name, sb, "b")
        if n is not None and sb[-2] is not None and sb[-2] != n:
            raise ValueError(
                f"`{self.op_name}`: `b` must have as many rows as `a`. "
                f"Received: a.shape={sa}, b.shape={sb}"
            )
        batch = broadcast_shapes(self.op_name, sa[:-2], sb[:-2])
        return (*batch, n if n is not None else sb[-2], sb[-1])

    def compute_output_spec(self, a: Any, b: Any) -> SymbolicTensor:
        return SymbolicTensor(self.output_shape(a, b), _joint_float(self.op_name, a, b))

    def call(self, a: Any, b: Any) -> Any:
        self.output_shape(a, b)
        dtype = _joint_float(self.op_name, a, b)
        ta, tb = to_tensor(a, compute_dtype(dtype)), to_tensor(b, compute_dtype(dtype))
        return restore(self.compute(ta, tb), dtype)

    def compute(self, a: Any, b: Any) -> Any:
        return backend().linalg.solve(a, b)


def solve(a: Any, b: Any) -> Any:
    """Solve ``a @ x = b`` for `x`, with `a` a (batch of) square matrix.

    Args:
        a: shape ``(..., M, M)``.
        b: shape ``(..., M, K)``, or ``(M,)`` for a single right-hand side.

    Example:
        >>> lamina.ops.solve(2 * np.eye(2), np.ones(2))  # [0.5, 0.5]
    """
    return Solve()(a, b)


class SolveTriangular(Solve):
    def __init__(self, lower: bool = False, name: str | None = None) -> None:
        super().__init__(name=name)
        self.lower = bool(lower)

    def compute(self, a: Any, b: Any) -> Any:
        return backend().linalg.solve_triangular(a, b, self.lower)


def solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    """Solve ``a @ x = b`` for a (batch of) triangular `a`; the other triangle is ignored.

    Args:
        lower: whether `a` is lower (else upper) triangular.

    Example:
        >>> lamina.ops.solve_triangular(np.tril(np.ones((2, 2))), np.ones(2), lower=True)
    """
    return SolveTriangular(lower=lower)(a, b)


class Lstsq(Op):
    def __init__(self, rcond: float | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        if rcond is not None and not isinstance(rcond, (int, float)):
            raise TypeError(
                f"`lstsq`: argument `rcond` must be a float or None. Received: rcond={rcond!r}"
            )
        self.rcond = rcond

    def output_shape(self, a: Any, b: Any) -> Shape:
        sa, sb = static_shape(a), static_shape(b)
        if len(sa) != 2 or len(sb) not in (1, 2):
            raise ValueError(
                f"`{self.op_name}`: `a` must be 2-D and `b` 1-D or 2-D. "
                f"Received: a.shape={sa}, b.shape={sb}"
            )
        if sa[0] is not None and sb[0] is not None and sa[0] != sb[0]:
            raise ValueError(
                f"`{self.op_name}`: `a` and `b` must have the same number of rows. "
                f"Received: a.shape={sa}, b.shape={sb}"
            )
        return (sa[1],) + sb[1:]

    def compute_output_spec(self, a: Any, b: Any) -> SymbolicTensor:
        return SymbolicTensor(self.output_shape(a, b), _joint_float(self.op_name, a, b))

    def call(self, a: Any, b: Any) -> Any:
        self.output_shape(a, b)
        dtype = _joint_float(self.op_name, a, b)
        ta, tb = to_tensor(a, compute_dtype(dtype)), to_tensor(b, compute_dtype(dtype))
        m, n = static_shape(a)
        rcond = self.rcond if self.rcond is not None else eps(dtype) * max(m or 1, n or 1)
        return restore(backend().linalg.lstsq(ta, tb, float(rcond)), dtype)


def lstsq(a: Any, b: Any, rcond: float | None = None) -> Any:
    """Least-squares (minimum-norm) solution of ``a @ x = b``, as `numpy.linalg.lstsq`.

    Args:
        a: shape ``(M, N)``. b: shape ``(M,)`` or ``(M, K)``.
        rcond: singular values below ``rcond * largest`` count as zero; None means
            ``eps * max(M, N)``.

    Example:
        >>> lamina.ops.lstsq(np.ones((3, 1)), np.arange(3.0))  # [1.0]
    """
    return Lstsq(rcond=rcond)(a, b)


class _Tolerance(Op):
    """One matrix plus a float cut-off on its singular values."""

    def __init__(self, value: float | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(
                f"`{self.op_name}`: its tolerance must be a float or None. Received: {value!r}"
            )
        self.value = None if value is None else float(value)


class Pinv(_Tolerance):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        check_matrix(self.op_name, shape)
        return SymbolicTensor((*shape[:-2], shape[-1], shape[-2]), float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        shape = static_shape(x)
        check_matrix(self.op_name, shape)
        dtype = float_dtype(self.op_name, x)
        rcond = self.value
        if rcond is None:
            rcond = eps(dtype) * max(shape[-2] or 1, shape[-1] or 1)
        return restore(backend().linalg.pinv(to_tensor(x, compute_dtype(dtype)), rcond), dtype)


def pinv(x: Any, rcond: float | None = None) -> Any:
    """Moore-Penrose pseudo-inverse of a (batch of) matrix, through its SVD.

    Args:
        rcond: singular values below ``rcond * largest`` count as zero; None means
            ``eps * max(M, N)``.

    Example:
        >>> lamina.ops.pinv(np.ones((2, 1)))  # [[0.5, 0.5]]
    """
    return Pinv(rcond)(x)


class MatrixRank(_Tolerance):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        check_matrix(self.op_name, shape)
        float_dtype(self.op_name, x)
        return SymbolicTensor(shape[:-2], "int32")

    def call(self, x: Any) -> Any:
        check_matrix(self.op_name, static_shape(x))
        dtype = float_dtype(self.op_name, x)
        out = composite("linalg", "matrix_rank")(to_tensor(x, compute_dtype(dtype)), self.value)
        return restore(out, "int32")


def matrix_rank(x: Any, tol: float | None = None) -> Any:
    """Rank of a (batch of) matrix: how many singular values exceed `tol`.

    Args:
        tol: absolute threshold; None means ``largest * max(M, N) * eps``, as NumPy.

    Returns:
        An int32 tensor of shape ``x.shape[:-2]``.

    Example:
        >>> lamina.ops.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))  # 1
    """
    return MatrixRank(tol)(x)


_MATRIX_ORDS = (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


class Norm(Op):
    def __init__(
        self, ord: Any = None, axis: Any = None, keepdims: bool = False, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.ord = ord
        self.axis = axis
        self.keepdims = bool(keepdims)

    def plan(self, shape: Shape) -> tuple[tuple[int, ...] | None, Shape]:
        op, ord_ = self.op_name, self.ord
        axes = canonical_axes(op, self.axis, len(shape))
        if axes is None and ord_ is not None:
            if len(shape) not in (1, 2):
                raise ValueError(
                    f"`{op}`: with `axis=None` and an `ord`, `x` must be 1-D or 2-D. "
                    f"Received: x.shape={shape}, ord={ord_!r}"
                )
            axes = tuple(range(len(shape)))
        if axes is not None and self.axis is not None and not isinstance(self.axis, int):
            # Keep the caller's order: for matrix norms, (rows, cols) matter.
            axes = tuple(a % len(shape) for a in self.axis)
        if axes is not None and len(axes) > 2:
            raise ValueError(
                f"`{op}`: argument `axis` must name 1 or 2 axes. Received: axis={self.axis!r}"
            )
        if axes is not None and len(axes) == 2:
            if ord_ not in _MATRIX_ORDS:
                raise ValueError(
                    f"`{op}`: argument `ord` is not a matrix norm; expected one of "
                    f"{_MATRIX_ORDS}. Received: ord={ord_!r}"
                )
        elif isinstance(ord_, (str, bool)) or not (ord_ is None or isinstance(ord_, (int, float))):
            raise ValueError(
                f"`{op}`: argument `ord` must be a number (or None) for vector norms. "
                f"Received: ord={ord_!r}"
            )
        return axes, reduced_shape(shape, axes and tuple(sorted(axes)), self.keepdims)

    def output_dtype(self, x: Any) -> str:
        dtype = float_dtype(self.op_name, x)
        return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self.plan(static_shape(x))[1], self.output_dtype(x))

    def call(self, x: Any) -> Any:
        axes, _ = self.plan(static_shape(x))
        dtype = float_dtype(self.op_name, x)
        out = backend().linalg.norm(
            to_tensor(x, compute_dtype(dtype)), self.ord, axes, self.keepdims
        )
        return restore(out, self.output_dtype(x))


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Vector or matrix norm, as `numpy.linalg.norm`.

    Args:
        ord: the order: a number, ``inf``/``-inf`` (vectors); "fro", "nuc", ±1, ±2,
            ±inf (matrices); None is the 2-norm or the Frobenius norm.
        axis: an int (vector norms), a pair of ints (matrix norms), or None (the whole
            tensor flattened when `ord` is None; otherwise `x` must be 1-D or 2-D).
        keepdims: keep the reduced axes with size 1.

    Example:
        >>> lamina.ops.norm(np.array([3.0, 4.0]))  # 5.0
    """
    return Norm(ord=ord, axis=axis, keepdims=keepdims)(x)


def jvp(
    fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False
) -> tuple[Any, ...]:
    """Forward-mode derivative: ``fun(*primals)`` and its directional derivative.

    Needs a backend with the TRAINING capability (jax, torch, tensorflow); the numpy
    backend cannot differentiate and raises NotImplementedError.

    Args:
        fun: a function of ``len(primals)`` tensors returning a tensor (or a nested
            structure), or ``(output, aux)`` when `has_aux`.
        primals: a tuple or list of input values.
        tangents: a tuple or list of tangents, one per primal, of the same shapes.
        has_aux: whether `fun` returns ``(output, aux)``; `aux` is returned, undifferentiated.

    Returns:
        ``(primals_out, tangents_out)``, plus ``aux`` when `has_aux`.

    Raises:
        NotImplementedError: the active backend cannot differentiate.

    Example:
        >>> lamina.ops.jvp(lambda x: x * x, (np.float32(3.0),), (np.float32(1.0),))  # (9, 6)
    """
    if not callable(fun):
        raise TypeError(f"`jvp`: argument `fun` must be callable. Received: fun={fun!r}")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "`jvp`: arguments `primals` and `tangents` must be tuples or lists. "
            f"Received: primals={type(primals).__name__}, tangents={type(tangents).__name__}"
        )
    if len(primals) != len(tangents):
        raise ValueError(
            "`jvp`: `primals` and `tangents` must have the same length. "
            f"Received: len(primals)={len(primals)}, len(tangents)={len(tangents)}"
        )
    for i, (p, t) in enumerate(zip(primals, tangents, strict=True)):
        if static_shape(p) != static_shape(t):
            raise ValueError(
                f"`jvp`: tangent {i} must have the shape of its primal. "
                f"Received: {static_shape(p)} and {static_shape(t)}"
            )
    b = backend()
    if Capability.TRAINING not in b.capabilities:
        raise NotImplementedError(
            f"`jvp`: the {b.name!r} backend cannot differentiate (it lacks the 'training' "
            "capability). Use the jax, torch or tensorflow backend."
        )
    ps = tuple(to_tensor(p) for p in primals)
    ts = tuple(to_tensor(t, dtypes.dtype_of(p)) for p, t in zip(ps, tangents, strict=True))
    return b.linalg.jvp(fun, ps, ts, bool(has_aux))
