"""Index contractions of one or more tensors: einsum and trace."""

from __future__ import annotations

import operator
from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, native, promote, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.numpy.linear._common import Shape, _join
from lamina.ops.shapes import broadcast_shapes, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["einsum", "trace"]


_SUM_WIDENS = {
    "bool": "int32",
    "int8": "int32",
    "int16": "int32",
    "uint8": "int32",
    "uint16": "int32",
}


class Trace(Op):
    def __init__(
        self, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.offset = operator.index(offset)
        self.axis1, self.axis2 = axis1, axis2

    def axes(self, shape: Shape) -> tuple[int, int]:
        if len(shape) < 2:
            raise ValueError(
                f"`{self.op_name}`: argument `x` must have rank >= 2. Received: x.shape={shape}"
            )
        a1 = canonical_axis(self.op_name, self.axis1, len(shape), "axis1")
        a2 = canonical_axis(self.op_name, self.axis2, len(shape), "axis2")
        if a1 == a2:
            raise ValueError(
                f"`{self.op_name}`: arguments `axis1` and `axis2` must differ. "
                f"Received: axis1={self.axis1}, axis2={self.axis2}"
            )
        return a1, a2

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        a1, a2 = self.axes(shape)
        dtype = dtypes.dtype_of(x)
        out = tuple(d for i, d in enumerate(shape) if i not in (a1, a2))
        return SymbolicTensor(out, _SUM_WIDENS.get(dtype, dtype))

    def call(self, x: Any) -> Any:
        a1, a2 = self.axes(static_shape(x))
        dtype = dtypes.dtype_of(x)
        x = to_tensor(x, _SUM_WIDENS.get(dtype, dtype))
        return composite("numpy", "trace")(x, self.offset, a1, a2)


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Sum along a diagonal of the 2-D slices given by `axis1` and `axis2`.

    Bools and small ints are summed as int32, as `sum` does.

    Example:
        >>> lamina.ops.trace(np.eye(3))  # 3.0
    """
    return Trace(offset=offset, axis1=axis1, axis2=axis2)(x)


def _parse_einsum(subscripts: str, shapes: list[Shape]) -> Shape:
    """The output shape of an einsum (explicit or implicit form, with ``...``)."""
    op = "einsum"
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"`{op}`: `subscripts` names {len(terms)} operand(s) but {len(shapes)} were "
            f"given. Received: subscripts={subscripts!r}"
        )
    sizes: dict[str, int | None] = {}
    counts: dict[str, int] = {}
    ellipsis: list[Shape] = []
    for term, shape in zip(terms, shapes, strict=True):
        letters = term.replace("...", "")
        if not all(c.isalpha() for c in letters):
            raise ValueError(
                f"`{op}`: `subscripts` may hold only letters, ',', '->' and '...'. "
                f"Received: subscripts={subscripts!r}"
            )
        n_ell = len(shape) - len(letters)
        if ("..." in term and n_ell < 0) or ("..." not in term and n_ell != 0):
            raise ValueError(
                f"`{op}`: term {term!r} does not match an operand of shape {shape}. "
                f"Received: subscripts={subscripts!r}"
            )
        if "..." in term:
            head, _, _ = term.partition("...")
            ellipsis.append(shape[len(head) : len(head) + n_ell])
            dims = shape[: len(head)] + shape[len(head) + n_ell :]
        else:
            dims = shape
        for c, d in zip(letters, dims, strict=True):
            counts[c] = counts.get(c, 0) + 1
            old = sizes.get(c)
            if old is not None and d is not None and d != old and 1 not in (d, old):
                raise ValueError(
                    f"`{op}`: index {c!r} has sizes {old} and {d}. "
                    f"Received: subscripts={subscripts!r}"
                )
            sizes[c] = d if old in (None, 1) else old
    batch = broadcast_shapes(op, *ellipsis) if ellipsis else ()
    if not arrow:
        rhs = ("..." if ellipsis else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    out: list[int | None] = []
    rest = rhs
    if "..." in rest:
        head, _, tail = rest.partition("...")
        out_letters = [head, tail]
    else:
        out_letters = [rest, ""]
    for c in out_letters[0]:
        if c not in sizes:
            raise ValueError(
                f"`{op}`: output index {c!r} is not among the inputs'. "
                f"Received: subscripts={subscripts!r}"
            )
        out.append(sizes[c])
    if "..." in rest:
        out.extend(batch)
    for c in out_letters[1]:
        if c not in sizes:
            raise ValueError(
                f"`{op}`: output index {c!r} is not among the inputs'. "
                f"Received: subscripts={subscripts!r}"
            )
        out.append(sizes[c])
    return tuple(out)


class Einsum(Op):
    def __init__(self, subscripts: str, name: str | None = None) -> None:
        super().__init__(name=name)
        if not isinstance(subscripts, str):
            raise TypeError(
                f"`einsum`: argument `subscripts` must be a string. "
                f"Received: subscripts={subscripts!r}"
            )
        self.subscripts = subscripts

    def compute_output_spec(self, *operands: Any) -> SymbolicTensor:
        shape = _parse_einsum(self.subscripts, [static_shape(x) for x in operands])
        return SymbolicTensor(shape, _join(self.op_name, *operands))

    def call(self, *operands: Any) -> Any:
        dtype, ready = memo(self, operands, lambda: self._checked(operands))
        tensors = operands if ready else promote(self.op_name, *operands, dtype=dtype)
        return backend().numpy.einsum(self.subscripts.replace(" ", ""), *tensors)

    def _checked(self, operands: tuple[Any, ...]) -> tuple[str, bool]:
        """The subscripts checked against the operands' shapes; the dtype they promote to,
        and whether each already is a tensor of it."""
        _parse_einsum(self.subscripts, [static_shape(x) for x in operands])
        dtype = _join(self.op_name, *operands)
        return dtype, native(dtype, *operands)


def einsum(subscripts: str, *operands: Any) -> Any:
    """Einstein summation over `operands` as described by `subscripts` (NumPy syntax).

    Example:
        >>> lamina.ops.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((3, 4))).shape  # (2, 4)
    """
    return Einsum(subscripts)(*operands)
