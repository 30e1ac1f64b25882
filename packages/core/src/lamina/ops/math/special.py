"""Special functions, logsumexp/logdet, top-k and complex views."""

from __future__ import annotations

import operator
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import FloatUnary, Op, Reduction
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.linalg._common import float_dtype, restore, square_shape, to_float
from lamina.ops.shapes import static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "in_top_k",
    "logdet",
    "logsumexp",
    "rsqrt",
    "top_k",
    "view_as_complex",
    "view_as_real",
]


class Erf(FloatUnary):
    def compute(self, x: Any) -> Any:
        return backend().math.erf(x)


def erf(x: Any) -> Any:
    """Gauss error function, element-wise (ints become floatx).

    Example:
        >>> lamina.ops.erf([0.0, 1.0])  # [0., 0.8427]
    """
    return Erf()(x)


class Erfc(FloatUnary):
    def compute(self, x: Any) -> Any:
        return backend().math.erfc(x)


def erfc(x: Any) -> Any:
    """Complementary error function ``1 - erf(x)``, accurate for large `x`.

    Example:
        >>> lamina.ops.erfc([0.0, 1.0])  # [1., 0.1573]
    """
    return Erfc()(x)


class Erfinv(FloatUnary):
    def compute(self, x: Any) -> Any:
        return backend().math.erfinv(x)


def erfinv(x: Any) -> Any:
    """Inverse error function on ``(-1, 1)``, element-wise.

    Example:
        >>> lamina.ops.erfinv([0.0, 0.5])  # [0., 0.4769]
    """
    return Erfinv()(x)


class Rsqrt(FloatUnary):
    def compute(self, x: Any) -> Any:
        return composite("math", "rsqrt")(x)


def rsqrt(x: Any) -> Any:
    """Reciprocal square root ``1 / sqrt(x)``, element-wise.

    Example:
        >>> lamina.ops.rsqrt([4.0, 16.0])  # [0.5, 0.25]
    """
    return Rsqrt()(x)


class Logsumexp(Reduction):
    def output_dtype(self, dtype: str) -> str:
        if dtype in dtypes.FLOATS:
            return dtype
        return dtypes.result_type(dtype, float)

    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        return composite("math", "logsumexp")(x, axes, self.keepdims)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(x)))`` over `axis`, computed without overflow.

    Example:
        >>> lamina.ops.logsumexp(np.zeros(4))  # log(4)
    """
    return Logsumexp(axis=axis, keepdims=keepdims)(x)


class Logdet(Op):
    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(square_shape(self.op_name, x)[:-2], float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        square_shape(self.op_name, x)
        t, dtype = to_float(self.op_name, x)
        return restore(composite("math", "logdet")(t), dtype)


def logdet(x: Any) -> Any:
    """Natural log of the determinant of a (batch of) positive-definite matrix.

    Example:
        >>> lamina.ops.logdet(2 * np.eye(2))  # log(4)
    """
    return Logdet()(x)


class TopK(Op):
    def __init__(self, k: int, sorted: bool = True, name: str | None = None) -> None:
        super().__init__(name=name)
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"`top_k`: argument `k` must be a non-negative int. Received: k={k!r}")
        self.k = k
        self.sorted = bool(sorted)

    def shape(self, x: Any) -> tuple[int | None, ...]:
        shape = static_shape(x)
        if not shape:
            raise ValueError(
                f"`{self.op_name}`: argument `x` must have rank >= 1. Received: x.shape=()"
            )
        if shape[-1] is not None and self.k > shape[-1]:
            raise ValueError(
                f"`{self.op_name}`: argument `k` must be at most the last dim of `x`. "
                f"Received: k={self.k}, x.shape={shape}"
            )
        return (*shape[:-1], self.k)

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = self.shape(x)
        return SymbolicTensor(shape, dtypes.dtype_of(x)), SymbolicTensor(shape, "int32")

    def call(self, x: Any) -> Any:
        self.shape(x)
        values, indices = backend().math.top_k(to_tensor(x), self.k, self.sorted)
        return values, restore(indices, "int32")


def top_k(x: Any, k: int, sorted: bool = True) -> Any:
    """The `k` largest entries along the last axis and their indices.

    Args:
        sorted: return them in descending order (otherwise in an unspecified order).

    Returns:
        ``(values, indices)``; indices are int32. Ties keep the lower index first.

    Example:
        >>> lamina.ops.top_k([1.0, 3.0, 2.0], 2)  # ([3., 2.], [1, 2])
    """
    return TopK(k, sorted=sorted)(x)


class InTopK(Op):
    def __init__(self, k: int, name: str | None = None) -> None:
        super().__init__(name=name)
        self.k = operator.index(k)

    def check(self, targets: Any, predictions: Any) -> tuple[int | None, ...]:
        st, sp = static_shape(targets), static_shape(predictions)
        if len(st) != 1 or len(sp) != 2:
            raise ValueError(
                f"`{self.op_name}`: `targets` must be 1-D and `predictions` 2-D. "
                f"Received: targets.shape={st}, predictions.shape={sp}"
            )
        if st[0] is not None and sp[0] is not None and st[0] != sp[0]:
            raise ValueError(
                f"`{self.op_name}`: `targets` and `predictions` must have the same batch size. "
                f"Received: targets.shape={st}, predictions.shape={sp}"
            )
        if dtypes.dtype_of(targets) not in dtypes.INTS:
            raise TypeError(
                f"`{self.op_name}`: argument `targets` must hold integer class ids. "
                f"Received: targets.dtype={dtypes.dtype_of(targets)}"
            )
        return (st[0] if st[0] is not None else sp[0],)

    def compute_output_spec(self, targets: Any, predictions: Any) -> SymbolicTensor:
        return SymbolicTensor(self.check(targets, predictions), "bool")

    def call(self, targets: Any, predictions: Any) -> Any:
        self.check(targets, predictions)
        p = to_tensor(predictions, float_dtype(self.op_name, predictions, "predictions"))
        return composite("math", "in_top_k")(to_tensor(targets, "int32"), p, self.k)


def in_top_k(targets: Any, predictions: Any, k: int) -> Any:
    """Whether each target's prediction is among the `k` largest of its row.

    A target counts as in the top k when fewer than `k` predictions in its row are
    strictly larger (so ties at the boundary count as in).

    Args:
        targets: int class ids, shape ``(batch,)``.
        predictions: scores, shape ``(batch, num_classes)``.

    Example:
        >>> lamina.ops.in_top_k([1], [[0.1, 0.7, 0.2]], 1)  # [True]
    """
    return InTopK(k)(targets, predictions)


class ViewAsComplex(Op):
    def check(self, x: Any) -> tuple[tuple[int | None, ...], str]:
        shape = static_shape(x)
        if not shape or shape[-1] not in (2, None):
            raise ValueError(
                f"`{self.op_name}`: the last dim of `x` must be 2 (real, imag). "
                f"Received: x.shape={shape}"
            )
        dtype = float_dtype(self.op_name, x)
        if dtype in dtypes.COMPLEXES:
            raise TypeError(f"`{self.op_name}`: argument `x` must be real. Received: {dtype}")
        return shape[:-1], "complex128" if dtype == "float64" else "complex64"

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(*self.check(x))

    def call(self, x: Any) -> Any:
        _, dtype = self.check(x)
        real = "float64" if dtype == "complex128" else "float32"
        return backend().math.view_as_complex(to_tensor(x, real))


def view_as_complex(x: Any) -> Any:
    """Complex tensor from a real one whose last dim holds (real, imag) pairs.

    Example:
        >>> lamina.ops.view_as_complex([[1.0, 2.0]])  # [1+2j]
    """
    return ViewAsComplex()(x)


class ViewAsReal(Op):
    def check(self, x: Any) -> tuple[tuple[int | None, ...], str]:
        dtype = dtypes.dtype_of(x)
        if dtype not in dtypes.COMPLEXES:
            raise TypeError(
                f"`{self.op_name}`: argument `x` must be complex. Received: x.dtype={dtype}"
            )
        return (*static_shape(x), 2), "float64" if dtype == "complex128" else "float32"

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(*self.check(x))

    def call(self, x: Any) -> Any:
        self.check(x)
        return composite("math", "view_as_real")(to_tensor(x))


def view_as_real(x: Any) -> Any:
    """Real tensor with a trailing dim of 2 holding the (real, imag) parts of `x`.

    Example:
        >>> lamina.ops.view_as_real(np.array([1 + 2j], "complex64"))  # [[1., 2.]]
    """
    return ViewAsReal()(x)
