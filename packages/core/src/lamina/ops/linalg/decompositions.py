"""Matrix decompositions and the quantities read off them (det, inverse, slogdet)."""

from __future__ import annotations

from typing import Any

from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend
from lamina.ops.linalg._common import (
    check_matrix,
    complex_dtype,
    float_dtype,
    restore,
    square_shape,
    to_float,
)
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "det",
    "eig",
    "eigh",
    "inv",
    "lu_factor",
    "qr",
    "slogdet",
    "svd",
]


class _SquareOp(Op):
    """One (batch of) square matrix in, one float tensor out of `output_shape`."""

    def output_shape(self, shape: Shape) -> Shape:
        return shape

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = square_shape(self.op_name, x)
        return SymbolicTensor(self.output_shape(shape), float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        return restore(self.compute(t), dtype)

    def compute(self, x: Any) -> Any:
        raise NotImplementedError


class Cholesky(_SquareOp):
    def __init__(self, upper: bool = False, name: str | None = None) -> None:
        super().__init__(name=name)
        self.upper = bool(upper)

    def compute(self, x: Any) -> Any:
        return backend().linalg.cholesky(x, self.upper)


def cholesky(x: Any, upper: bool = False) -> Any:
    """Cholesky factor of a (batch of) symmetric positive-definite matrix.

    Args:
        x: tensor of shape ``(..., M, M)``.
        upper: return the upper factor ``U`` (``x = U^H U``) instead of the lower ``L``.

    Example:
        >>> lamina.ops.cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]))  # [[2, 0], [1, 1.414]]
    """
    return Cholesky(upper=upper)(x)


class CholeskyInverse(Cholesky):
    def compute(self, x: Any) -> Any:
        return composite("linalg", "cholesky_inverse")(x, self.upper)


def cholesky_inverse(x: Any, upper: bool = False) -> Any:
    """Inverse of a positive-definite matrix given its Cholesky factor `x`.

    Args:
        x: the lower (or, with `upper`, upper) triangular factor, shape ``(..., M, M)``.
        upper: whether `x` is the upper factor.

    Example:
        >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
        >>> lamina.ops.cholesky_inverse(lamina.ops.cholesky(a))  # inverse of `a`
    """
    return CholeskyInverse(upper=upper)(x)


class Det(_SquareOp):
    def output_shape(self, shape: Shape) -> Shape:
        return shape[:-2]

    def compute(self, x: Any) -> Any:
        return backend().linalg.det(x)


def det(x: Any) -> Any:
    """Determinant of a (batch of) square matrix.

    Example:
        >>> lamina.ops.det(np.eye(3))  # 1.0
    """
    return Det()(x)


class Inv(_SquareOp):
    def compute(self, x: Any) -> Any:
        return backend().linalg.inv(x)


def inv(x: Any) -> Any:
    """Inverse of a (batch of) square matrix.

    Example:
        >>> lamina.ops.inv(2 * np.eye(2))  # 0.5 * eye
    """
    return Inv()(x)


class Eig(Op):
    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = square_shape(self.op_name, x)
        dtype = complex_dtype(float_dtype(self.op_name, x))
        return SymbolicTensor(shape[:-1], dtype), SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        w, v = backend().linalg.eig(t)
        # NumPy returns real arrays when every eigenvalue is real: make it always complex.
        out = complex_dtype(dtype)
        return restore(w, out), restore(v, out)


def eig(x: Any) -> Any:
    """Eigenvalues and right eigenvectors of a (batch of) general square matrix.

    Returns:
        ``(eigenvalues, eigenvectors)`` as complex tensors (complex64 for float32 and
        half-precision inputs, complex128 for float64); column ``v[..., :, i]`` pairs with
        ``w[..., i]``. Their order is not specified.

    Example:
        >>> w, v = lamina.ops.eig(np.diag([1.0, 2.0]))
    """
    return Eig()(x)


class Eigh(Op):
    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = square_shape(self.op_name, x)
        dtype = float_dtype(self.op_name, x)
        return SymbolicTensor(shape[:-1], dtype), SymbolicTensor(shape, dtype)

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        w, v = backend().linalg.eigh(t)
        return restore(w, dtype), restore(v, dtype)


def eigh(x: Any) -> Any:
    """Eigenvalues (ascending) and eigenvectors of a (batch of) symmetric matrix.

    Only the lower triangle of `x` is read.

    Returns:
        ``(eigenvalues, eigenvectors)``; column ``v[..., :, i]`` pairs with ``w[..., i]``.

    Example:
        >>> w, v = lamina.ops.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))  # w = [1, 3]
    """
    return Eigh()(x)


class LuFactor(Op):
    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = square_shape(self.op_name, x)
        return (
            SymbolicTensor(shape, float_dtype(self.op_name, x)),
            SymbolicTensor(shape[:-1], "int32"),
        )

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        lu, piv = backend().linalg.lu_factor(t)
        return restore(lu, dtype), restore(piv, "int32")


def lu_factor(x: Any) -> Any:
    """LU factorization with partial pivoting, as `scipy.linalg.lu_factor`.

    Returns:
        ``(lu, pivots)``: ``L`` (unit diagonal, not stored) and ``U`` packed in one matrix,
        and int32 pivot indices (0-based; row ``i`` was swapped with row ``pivots[i]``).

    Example:
        >>> lu, piv = lamina.ops.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    """
    return LuFactor()(x)


class Qr(Op):
    def __init__(self, mode: str = "reduced", name: str | None = None) -> None:
        super().__init__(name=name)
        if mode not in ("reduced", "complete"):
            raise ValueError(
                f"`qr`: argument `mode` must be 'reduced' or 'complete'. Received: mode={mode!r}"
            )
        self.mode = mode

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = static_shape(x)
        check_matrix(self.op_name, shape)
        m, n = shape[-2], shape[-1]
        k = m if self.mode == "complete" else (None if m is None or n is None else min(m, n))
        dtype = float_dtype(self.op_name, x)
        return (
            SymbolicTensor((*shape[:-2], m, k), dtype),
            SymbolicTensor((*shape[:-2], k, n), dtype),
        )

    def call(self, x: Any) -> Any:
        check_matrix(self.op_name, static_shape(x))
        t, dtype = to_float(self.op_name, x)
        q, r = backend().linalg.qr(t, self.mode)
        return restore(q, dtype), restore(r, dtype)


def qr(x: Any, mode: str = "reduced") -> Any:
    """QR decomposition of a (batch of) matrix of shape ``(..., M, N)``.

    Args:
        mode: "reduced" (``q`` is ``(..., M, K)``, ``K = min(M, N)``) or "complete"
            (``q`` is ``(..., M, M)``).

    Returns:
        ``(q, r)`` with orthonormal columns in ``q`` and upper-triangular ``r``.

    Example:
        >>> q, r = lamina.ops.qr(np.ones((3, 2)))
    """
    return Qr(mode=mode)(x)


class Svd(Op):
    def __init__(
        self, full_matrices: bool = True, compute_uv: bool = True, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.full_matrices = bool(full_matrices)
        self.compute_uv = bool(compute_uv)

    def compute_output_spec(self, x: Any) -> Any:
        shape = static_shape(x)
        check_matrix(self.op_name, shape)
        batch, (m, n) = shape[:-2], shape[-2:]
        k = None if m is None or n is None else min(m, n)
        dtype = float_dtype(self.op_name, x)
        s = SymbolicTensor((*batch, k), dtype)
        if not self.compute_uv:
            return s
        ku, kv = (m, n) if self.full_matrices else (k, k)
        return (
            SymbolicTensor((*batch, m, ku), dtype),
            s,
            SymbolicTensor((*batch, kv, n), dtype),
        )

    def call(self, x: Any) -> Any:
        check_matrix(self.op_name, static_shape(x))
        t, dtype = to_float(self.op_name, x)
        out = backend().linalg.svd(t, self.full_matrices, self.compute_uv)
        if not self.compute_uv:
            return restore(out, dtype)
        return tuple(restore(o, dtype) for o in out)


def svd(x: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Singular value decomposition ``x = u @ diag(s) @ vh`` of shape ``(..., M, N)``.

    Args:
        full_matrices: square ``u`` and ``vh``; otherwise ``(..., M, K)`` and ``(..., K, N)``.
        compute_uv: return ``(u, s, vh)``; otherwise only ``s`` (descending).

    Example:
        >>> u, s, vh = lamina.ops.svd(np.eye(2))
    """
    return Svd(full_matrices=full_matrices, compute_uv=compute_uv)(x)


class Slogdet(Op):
    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = square_shape(self.op_name, x)
        dtype = float_dtype(self.op_name, x)
        return SymbolicTensor(shape[:-2], dtype), SymbolicTensor(shape[:-2], dtype)

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        sign, logabsdet = backend().linalg.slogdet(t)
        return restore(sign, dtype), restore(logabsdet, dtype)


def slogdet(x: Any) -> Any:
    """Sign and natural log of the absolute determinant of a (batch of) square matrix.

    Returns:
        ``(sign, logabsdet)`` with ``det = sign * exp(logabsdet)``.

    Example:
        >>> sign, logdet = lamina.ops.slogdet(2 * np.eye(2))  # (1.0, log(4))
    """
    return Slogdet()(x)
