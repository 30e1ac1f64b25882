"""Products of two tensors: matmul, dot, inner, outer, kron, vdot, tensordot, cross,
correlate."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote
from lamina.ops.numpy.linear._common import Shape, _Binary, _check_dims, _mul
from lamina.ops.shapes import broadcast_shapes, canonical_axis, static_shape

__all__ = ["correlate", "cross", "dot", "inner", "kron", "matmul", "outer", "tensordot", "vdot"]


def _matmul_shape(op: str, a: Shape, b: Shape) -> Shape:
    if not a or not b:
        raise ValueError(
            f"`{op}`: inputs must have rank >= 1. Received: x1.shape={a}, x2.shape={b}"
        )
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] is not None and b2[-2] is not None and a2[-1] != b2[-2]:
        raise ValueError(
            f"`{op}`: the last dim of `x1` must equal the second-to-last dim of `x2`. "
            f"Received: x1.shape={a}, x2.shape={b}"
        )
    batch = broadcast_shapes(op, a2[:-2], b2[:-2])
    out = (*batch, a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


class Matmul(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        return _matmul_shape(self.op_name, a, b)

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.matmul(x1, x2)


def matmul(x1: Any, x2: Any) -> Any:
    """Matrix product of two tensors, batched over leading dims (NumPy's rules).

    Example:
        >>> lamina.ops.matmul(np.ones((2, 3)), np.ones((3, 4))).shape  # (2, 4)
    """
    return Matmul()(x1, x2)


class Dot(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        if not a or not b:
            return broadcast_shapes(self.op_name, a, b)
        k = len(b) - 2 if len(b) >= 2 else 0
        _check_dims(self.op_name, a[-1], b[k], "the contracted dims", a, b)
        return a[:-1] + b[:k] + b[k + 1 :]

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.dot(x1, x2)


def dot(x1: Any, x2: Any) -> Any:
    """Dot product with NumPy's rules: scalars multiply, N-D contracts `x1`'s last axis
    with `x2`'s second-to-last (its only axis when 1-D).

    Example:
        >>> lamina.ops.dot([1.0, 2.0], [3.0, 4.0])  # 11.0
    """
    return Dot()(x1, x2)


class Inner(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        if not a or not b:
            return broadcast_shapes(self.op_name, a, b)
        _check_dims(self.op_name, a[-1], b[-1], "the last dims", a, b)
        return a[:-1] + b[:-1]

    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "inner")(x1, x2)


def inner(x1: Any, x2: Any) -> Any:
    """Inner product over the last axes of `x1` and `x2` (scalars multiply).

    Example:
        >>> lamina.ops.inner(np.ones((2, 3)), np.ones((4, 3))).shape  # (2, 4)
    """
    return Inner()(x1, x2)


class Outer(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        def size(s: Shape) -> int | None:
            n: int | None = 1
            for d in s:
                n = _mul(n, d)
            return n

        return (size(a), size(b))

    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "outer")(x1, x2)


def outer(x1: Any, x2: Any) -> Any:
    """Outer product of the flattened `x1` and `x2`: shape ``(x1.size, x2.size)``.

    Example:
        >>> lamina.ops.outer([1.0, 2.0], [1.0, 2.0, 3.0]).shape  # (2, 3)
    """
    return Outer()(x1, x2)


class Kron(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        n = max(len(a), len(b))
        a = (1,) * (n - len(a)) + a
        b = (1,) * (n - len(b)) + b
        return tuple(_mul(i, j) for i, j in zip(a, b, strict=True))

    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "kron")(x1, x2)


def kron(x1: Any, x2: Any) -> Any:
    """Kronecker product of `x1` and `x2` (the shorter shape is padded with leading 1s).

    Example:
        >>> lamina.ops.kron(np.eye(2), np.ones((2, 2))).shape  # (4, 4)
    """
    return Kron()(x1, x2)


class Vdot(_Binary):
    def shape(self, a: Shape, b: Shape) -> Shape:
        n1, n2 = Outer().shape(a, b)
        _check_dims(self.op_name, n1, n2, "the sizes", a, b)
        return ()

    def compute(self, x1: Any, x2: Any) -> Any:
        return composite("numpy", "vdot")(x1, x2)


def vdot(x1: Any, x2: Any) -> Any:
    """Dot product of the flattened `x1` and `x2`, conjugating `x1` first when complex.

    Example:
        >>> lamina.ops.vdot(np.ones((2, 2)), np.ones(4))  # 4.0
    """
    return Vdot()(x1, x2)


class Tensordot(_Binary):
    def __init__(self, axes: Any = 2, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axes = axes

    def normalized_axes(self, a: Shape, b: Shape) -> tuple[tuple[int, ...], tuple[int, ...]]:
        axes = self.axes
        if isinstance(axes, int) and not isinstance(axes, bool):
            if not 0 <= axes <= min(len(a), len(b)):
                raise ValueError(
                    f"`{self.op_name}`: argument `axes` must be in [0, min(ranks)]. "
                    f"Received: axes={axes}, x1.shape={a}, x2.shape={b}"
                )
            return tuple(range(len(a) - axes, len(a))), tuple(range(axes))
        try:
            first, second = axes
            first = (first,) if isinstance(first, int) else tuple(first)
            second = (second,) if isinstance(second, int) else tuple(second)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{self.op_name}`: argument `axes` must be an int or a pair of axis "
                f"sequences. Received: axes={axes!r}"
            ) from None
        if len(first) != len(second):
            raise ValueError(
                f"`{self.op_name}`: argument `axes` must list as many axes for `x1` as for "
                f"`x2`. Received: axes={axes!r}"
            )
        ax1 = tuple(canonical_axis(self.op_name, i, len(a), "axes") for i in first)
        ax2 = tuple(canonical_axis(self.op_name, i, len(b), "axes") for i in second)
        return ax1, ax2

    def shape(self, a: Shape, b: Shape) -> Shape:
        ax1, ax2 = self.normalized_axes(a, b)
        for i, j in zip(ax1, ax2, strict=True):
            _check_dims(self.op_name, a[i], b[j], f"contracted dims ({i}, {j})", a, b)
        return tuple(d for i, d in enumerate(a) if i not in ax1) + tuple(
            d for j, d in enumerate(b) if j not in ax2
        )

    def call(self, x1: Any, x2: Any) -> Any:
        self.shape(static_shape(x1), static_shape(x2))
        axes = self.normalized_axes(static_shape(x1), static_shape(x2))
        a, b = promote(self.op_name, x1, x2)
        return backend().numpy.tensordot(a, b, axes)


def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    """Sum products over the given axes: the last `axes` of `x1` with the first of `x2`,
    or the explicit pair of axis lists ``(axes_x1, axes_x2)``.

    Example:
        >>> lamina.ops.tensordot(np.ones((2, 3)), np.ones((3, 4)), axes=1).shape  # (2, 4)
    """
    return Tensordot(axes=axes)(x1, x2)


class Cross(_Binary):
    def __init__(
        self,
        axisa: int = -1,
        axisb: int = -1,
        axisc: int = -1,
        axis: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        if axis is not None:
            axisa = axisb = axisc = axis
        self.axisa, self.axisb, self.axisc, self.axis = axisa, axisb, axisc, axis

    def plan(self, a: Shape, b: Shape) -> tuple[int, int, int, Shape]:
        op = self.op_name
        ia = canonical_axis(op, self.axisa, len(a), "axisa")
        ib = canonical_axis(op, self.axisb, len(b), "axisb")
        da, db = a[ia], b[ib]
        for d, arg in ((da, "x1"), (db, "x2")):
            if d not in (2, 3, None):
                raise ValueError(
                    f"`{op}`: the vector axis of `{arg}` must have 2 or 3 elements. "
                    f"Received: x1.shape={a}, x2.shape={b}"
                )
        batch = broadcast_shapes(op, a[:ia] + a[ia + 1 :], b[:ib] + b[ib + 1 :])
        if da == 2 and db == 2:
            return ia, ib, 0, batch
        ic = canonical_axis(op, self.axisc, len(batch) + 1, "axisc")
        vec = 3 if 3 in (da, db) else None
        return ia, ib, ic, batch[:ic] + (vec,) + batch[ic:]

    def shape(self, a: Shape, b: Shape) -> Shape:
        return self.plan(a, b)[3]

    def call(self, x1: Any, x2: Any) -> Any:
        ia, ib, ic, _ = self.plan(static_shape(x1), static_shape(x2))
        a, b = promote(self.op_name, x1, x2)
        return backend().numpy.cross(a, b, ia, ib, ic)


def cross(
    x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None
) -> Any:
    """Cross product of 2- or 3-element vectors along the given axes.

    Args:
        x1: first vectors. x2: second vectors (the non-vector dims broadcast).
        axisa: the vector axis of `x1` and `x2`. axisc: the vector axis of the output.
        axisb: the vector axis of `x1` and `x2`. axisc: the vector axis of the output.
        axis: if given, overrides all three.

    Example:
        >>> lamina.ops.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])  # [0., 0., 1.]
    """
    return Cross(axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)(x1, x2)


class Correlate(_Binary):
    def __init__(self, mode: str = "valid", name: str | None = None) -> None:
        super().__init__(name=name)
        if mode not in ("valid", "same", "full"):
            raise ValueError(
                "`correlate`: argument `mode` must be 'valid', 'same' or 'full'. "
                f"Received: mode={mode!r}"
            )
        self.mode = mode

    def output_dtype(self, dtype: str) -> str:
        return dtype if dtype in dtypes.FLOATS else dtypes.result_type(dtype, float)

    def shape(self, a: Shape, b: Shape) -> Shape:
        if len(a) != 1 or len(b) != 1:
            raise ValueError(
                f"`{self.op_name}`: inputs must be 1-D. Received: x1.shape={a}, x2.shape={b}"
            )
        n, m = a[0], b[0]
        if n is None or m is None:
            return (None,)
        if self.mode == "full":
            return (n + m - 1,)
        return (max(n, m),) if self.mode == "same" else (max(n, m) - min(n, m) + 1,)

    def compute(self, x1: Any, x2: Any) -> Any:
        return backend().numpy.correlate(x1, x2, self.mode)


def correlate(x1: Any, x2: Any, mode: str = "valid") -> Any:
    """Cross-correlation of two 1-D sequences (NumPy's `correlate`); ints become floats.

    Args:
        mode: "valid", "same" or "full", as in NumPy.

    Example:
        >>> lamina.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])  # [3.5]
    """
    return Correlate(mode=mode)(x1, x2)
