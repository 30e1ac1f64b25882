"""`SymbolicTensor`: a shape and dtype flowing through the functional API, no data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lamina.ops.dtypes import standardize_dtype

if TYPE_CHECKING:
    from lamina.ops.node import Node
    from lamina.ops.operation import Operation


def _standardize_shape(shape: Any) -> tuple[int | None, ...]:
    if shape is None:
        raise ValueError("Argument `shape` must be a tuple of ints or None. Received: None")
    if isinstance(shape, int):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(
            f"Argument `shape` must be a tuple of ints or None. Received: shape={shape!r}"
        ) from None
    out: list[int | None] = []
    for d in dims:
        if d is None:
            out.append(None)
            continue
        try:
            value = int(d)
        except (TypeError, ValueError):
            raise ValueError(
                f"Argument `shape` must be a tuple of ints or None. Received: shape={shape!r}"
            ) from None
        if value < 0:
            raise ValueError(
                f"Argument `shape` must have non-negative dims. Received: shape={shape!r}"
            )
        out.append(value)
    return tuple(out)


class History:
    """Where a symbolic tensor came from: an operation's node and output index."""

    __slots__ = ("node", "operation", "tensor_index")

    def __init__(self, operation: Operation, node: Node, tensor_index: int) -> None:
        self.operation = operation
        self.node = node
        self.tensor_index = tensor_index


class SymbolicTensor:
    """A placeholder with a shape (``None`` for unknown dims) and a dtype.

    Built by `lamina.Input` and returned by every op and layer called on one. Python
    operators and indexing record ops, so ``x * 2 + y[:, 0]`` builds a graph.
    """

    def __init__(
        self,
        shape: Any,
        dtype: Any = "float32",
        sparse: bool = False,
        ragged: bool = False,
        record_history: bool = True,
        name: str | None = None,
    ) -> None:
        self.shape: tuple[int | None, ...] = _standardize_shape(shape)
        self.dtype: str = standardize_dtype(dtype)
        self.sparse = bool(sparse)
        self.ragged = bool(ragged)
        self.name = name
        self.record_history = record_history
        self.optional = False
        self.history: History | None = None

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def reshape(self, newshape: Any) -> SymbolicTensor:
        from lamina.ops.numpy.shape import reshape

        result: SymbolicTensor = reshape(self, newshape)
        return result

    def squeeze(self, axis: Any = None) -> SymbolicTensor:
        from lamina.ops.numpy.shape import squeeze

        result: SymbolicTensor = squeeze(self, axis=axis)
        return result

    @property
    def T(self) -> SymbolicTensor:
        from lamina.ops.numpy.shape import transpose

        result: SymbolicTensor = transpose(self)
        return result

    def __repr__(self) -> str:
        name = f", name={self.name}" if self.name else ""
        return f"<SymbolicTensor shape={self.shape}, dtype={self.dtype}{name}>"

    def __iter__(self) -> Any:
        if not self.shape or self.shape[0] is None:
            raise TypeError(
                "Cannot iterate over a symbolic tensor whose first dimension is unknown. "
                f"Received: {self!r}"
            )
        from lamina.ops import core

        return iter(core.unstack(self, axis=0))

    def __bool__(self) -> bool:
        raise TypeError(
            "A symbolic tensor has no value, so it cannot be used as a Python bool "
            "(in `if`, `while`, `and`, `or`). Use `lamina.ops.cond` or `lamina.ops.where`."
        )

    def __len__(self) -> int:
        if not self.shape or self.shape[0] is None:
            raise TypeError(f"len() of a symbolic tensor with unknown first dim: {self!r}")
        return self.shape[0]

    __hash__ = object.__hash__

    # Python operators record ops. Imported lazily: lamina.ops imports this module.
    def __add__(self, other: Any) -> Any:
        return _np().add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _np().add(other, self)

    def __sub__(self, other: Any) -> Any:
        return _np().subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _np().subtract(other, self)

    def __mul__(self, other: Any) -> Any:
        return _np().multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _np().multiply(other, self)

    def __matmul__(self, other: Any) -> Any:
        return _np().matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _np().matmul(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _np().true_divide(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _np().true_divide(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _np().floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _np().floor_divide(other, self)

    def __mod__(self, other: Any) -> Any:
        return _np().mod(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _np().mod(other, self)

    def __pow__(self, other: Any) -> Any:
        return _np().power(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _np().power(other, self)

    def __neg__(self) -> Any:
        return _np().negative(self)

    def __pos__(self) -> SymbolicTensor:
        return self

    def __abs__(self) -> Any:
        return _np().absolute(self)

    def __invert__(self) -> Any:
        return _np().logical_not(self) if self.dtype == "bool" else _np().bitwise_not(self)

    def __and__(self, other: Any) -> Any:
        return _np().logical_and(self, other)

    def __rand__(self, other: Any) -> Any:
        return _np().logical_and(other, self)

    def __or__(self, other: Any) -> Any:
        return _np().logical_or(self, other)

    def __ror__(self, other: Any) -> Any:
        return _np().logical_or(other, self)

    def __xor__(self, other: Any) -> Any:
        return _np().logical_xor(self, other)

    def __rxor__(self, other: Any) -> Any:
        return _np().logical_xor(other, self)

    def __lt__(self, other: Any) -> Any:
        return _np().less(self, other)

    def __le__(self, other: Any) -> Any:
        return _np().less_equal(self, other)

    def __gt__(self, other: Any) -> Any:
        return _np().greater(self, other)

    def __ge__(self, other: Any) -> Any:
        return _np().greater_equal(self, other)

    def __ne__(self, other: Any) -> Any:
        return _np().not_equal(self, other)

    def __eq__(self, other: Any) -> Any:
        return _np().equal(self, other)

    def __getitem__(self, key: Any) -> Any:
        return _np().get_item(self, key)


def _np() -> Any:
    from lamina.ops import numpy

    return numpy


def is_symbolic(x: Any) -> bool:
    """Whether `x` is a `SymbolicTensor`."""
    return isinstance(x, SymbolicTensor)


_LEAF_TYPES: set[type] = set()
"""Types seen to be neither symbolic nor containers (tensors, scalars), checked first."""


def any_symbolic(*values: Any) -> bool:
    """Whether any value, looking inside lists, tuples and dicts, is a `SymbolicTensor`."""
    for v in values:
        if type(v) in _LEAF_TYPES:
            continue
        if isinstance(v, SymbolicTensor):
            return True
        if isinstance(v, (list, tuple)):
            if any_symbolic(*v):
                return True
        elif isinstance(v, dict):
            if any_symbolic(*v.values()):
                return True
        else:
            _LEAF_TYPES.add(type(v))
    return False
