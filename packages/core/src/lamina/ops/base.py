"""Base classes for the common kinds of op, so each op states only what is its own.

An op subclass provides `compute` (the backend call on already converted, promoted
tensors); shape checks, dtype promotion and the symbolic spec come from its base.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from lamina.ops import dtypes
from lamina.ops.dispatch import native, promote, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.operation import Operation, _snake_case
from lamina.ops.shapes import broadcast_shapes, canonical_axes, reduced_shape, static_shape
from lamina.ops.symbolic import SymbolicTensor


class Op(Operation):
    """An op of `lamina.ops`; `op_name` (the public function name) prefixes its errors."""

    op_name: ClassVar[str] = "op"
    _takes_no_arguments: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.op_name = _snake_case(cls.__name__)
        cls._takes_no_arguments = cls.__init__ is Operation.__init__

    def memo_params(self) -> tuple[Any, ...] | None:
        """What besides the inputs decides this op's eager checks, for `eager_memo`.

        Nothing for an op without constructor arguments. Otherwise its arguments, as kept
        under their own names, when each is a literal (`literal_key`); None (check on
        every call) when one is not. Ops whose `call` does not use `memo` ignore it.
        """
        if self._takes_no_arguments:
            return ()
        return literal_key(tuple(getattr(self, p, _MISSING) for p in _init_params(type(self))))

    def get_config(self) -> dict[str, Any]:
        """The name and constructor arguments, read back from the same-named attributes.

        Ops keep their arguments under their own names, so one rule serves every op and
        costs nothing per call (ops are made on every eager call).

        Raises:
            ValueError: the op does not keep an argument, or holds a function (a config
                cannot hold one).
        """
        config: dict[str, Any] = {"name": self.name}
        for param in _init_params(type(self)):
            if not hasattr(self, param):
                raise ValueError(
                    f"The op `{self.op_name}` cannot be saved in a config: it does not keep "
                    f"its argument `{param}`. Wrap the call in a layer."
                )
            value = getattr(self, param)
            if callable(value):
                raise ValueError(
                    f"The op `{self.op_name}` cannot be saved in a config: its argument "
                    f"`{param}` is a function. Wrap the call in a layer."
                )
            config[param] = value
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Op:
        """The op from `get_config`'s output as saved: JSON lists and ``__tuple__`` entries
        become the tuples ops take, ``__slice__`` and ``__ellipsis__`` an indexing key's
        parts. Nothing else is decoded: an op's arguments are plain data."""
        return cls(**{k: _plain(v) for k, v in config.items()})


_LITERALS = frozenset({bool, int, float, str})
_MISSING = object()  # an argument the op does not keep: never a literal


def literal_key(values: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """`values` and their types, when each is None, a bool, int, float or str, or a tuple
    or list of ints: a memo key in which ``1``, ``1.0`` and ``True`` differ, as do ``[1]``
    and ``(1,)``. None otherwise (an array or a tensor argument is checked on every
    call)."""
    key = []
    for value in values:
        kind = type(value)
        if kind is tuple or kind is list:
            if not all(type(v) is int for v in value):
                return None
            value = tuple(value)
        elif value is not None and kind not in _LITERALS:
            return None
        key.append(value)
    return tuple(key), tuple(map(type, values))


_INIT_PARAMS: dict[type, tuple[str, ...]] = {}


def _init_params(cls: type) -> tuple[str, ...]:
    """The constructor's argument names, less ``self`` and ``name`` (cached per class)."""
    params = _INIT_PARAMS.get(cls)
    if params is None:
        params = _INIT_PARAMS[cls] = tuple(
            p.name
            for p in inspect.signature(cls.__init__).parameters.values()  # type: ignore[misc]
            if p.name not in ("self", "name") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        )
    return params


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    if not isinstance(value, dict):
        return value
    marker, inner = value.get("class_name"), value.get("config")
    if marker == "__tuple__" and isinstance(inner, dict):
        return _plain(inner.get("value", []))
    if marker == "__ellipsis__":
        return Ellipsis
    if marker == "__slice__" and isinstance(inner, dict):
        return slice(*(_plain(inner.get(k)) for k in ("start", "stop", "step")))
    return {k: _plain(v) for k, v in value.items()}


class PromotingBinary(Op):
    """Two inputs converted to one dtype (`_checked_dtype`, which also checks their
    shapes) before `compute`."""

    def call(self, x1: Any, x2: Any) -> Any:
        dtype, ready = memo(self, (x1, x2), lambda: self._promotion(x1, x2))
        if not ready:
            x1, x2 = promote(self.op_name, x1, x2, dtype=dtype)
        return self.compute(x1, x2)

    def _promotion(self, x1: Any, x2: Any) -> tuple[str, bool]:
        """The dtype to compute in, and whether both inputs are already tensors of it."""
        dtype = self._checked_dtype(x1, x2)
        return dtype, native(dtype, x1, x2)

    def _checked_dtype(self, x1: Any, x2: Any) -> str:
        raise NotImplementedError

    def compute(self, x1: Any, x2: Any) -> Any:
        raise NotImplementedError


class ElementwiseBinary(PromotingBinary):
    """Two inputs broadcast together; the output dtype is their promoted dtype."""

    def output_dtype(self, dtype: str) -> str:
        """The output dtype given the promoted input dtype (comparisons return bool)."""
        return dtype

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        shape = broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        try:
            dtype = dtypes.result_type(dtypes.promotion_key(x1), dtypes.promotion_key(x2))
        except ValueError as e:
            raise TypeError(f"`{self.op_name}`: {e}") from None
        return SymbolicTensor(shape, self.output_dtype(dtype))

    def _checked_dtype(self, x1: Any, x2: Any) -> str:
        """Check that the shapes broadcast; return the promoted dtype."""
        broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        try:
            return dtypes.result_type(dtypes.promotion_key(x1), dtypes.promotion_key(x2))
        except ValueError as e:
            raise TypeError(f"`{self.op_name}`: {e}") from None


class ElementwiseUnary(Op):
    """One input, same shape out; the output dtype is the input's."""

    def output_dtype(self, dtype: str) -> str:
        """The output dtype given the input dtype."""
        return dtype

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(static_shape(x), self.output_dtype(dtypes.dtype_of(x)))

    def call(self, x: Any) -> Any:
        return self.compute(to_tensor(x))

    def compute(self, x: Any) -> Any:
        raise NotImplementedError


class FloatUnary(ElementwiseUnary):
    """One input promoted to float first (sin, exp, sqrt...): ints become floatx."""

    def output_dtype(self, dtype: str) -> str:
        if dtype in dtypes.FLOATS or dtype in dtypes.COMPLEXES:
            return dtype
        return dtypes.result_type(dtype, float)

    def call(self, x: Any) -> Any:
        dtype, ready = memo(self, (x,), lambda: self._compute_dtype(x))
        return self.compute(x if ready else to_tensor(x, dtype))

    def _compute_dtype(self, x: Any) -> tuple[str, bool]:
        dtype = self.output_dtype(dtypes.dtype_of(x))
        return dtype, native(dtype, x)


class Reduction(Op):
    """Reduce `axis` (None, int or tuple) of one input, optionally keeping the dims."""

    def __init__(self, axis: Any = None, keepdims: bool = False, name: str | None = None):
        super().__init__(name=name)
        self.axis = axis
        self.keepdims = bool(keepdims)

    def output_dtype(self, dtype: str) -> str:
        """The output dtype given the input dtype."""
        return dtype

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        axes = canonical_axes(self.op_name, self.axis, len(shape))
        return SymbolicTensor(
            reduced_shape(shape, axes, self.keepdims), self.output_dtype(dtypes.dtype_of(x))
        )

    def input_dtype(self, dtype: str) -> str:
        """The dtype `x` is reduced in, given its own: its output dtype, as a rule."""
        return self.output_dtype(dtype)

    def check_input(self, shape: tuple[int | None, ...], axes: Any, dtype: str) -> None:
        """Further checks of the input's shape and dtype; subclasses raise here."""

    def call(self, x: Any) -> Any:
        axes, dtype, ready = memo(self, (x,), lambda: self._checked(x))
        return self.compute(x if ready else to_tensor(x, dtype), axes)

    def _checked(self, x: Any) -> tuple[tuple[int, ...] | None, str, bool]:
        """The canonical axes, the dtype to reduce in and whether `x` already is a tensor
        of it: everything `call` works out before the backend's reduction."""
        shape = static_shape(x)
        axes = canonical_axes(self.op_name, self.axis, len(shape))
        dtype = self.input_dtype(dtypes.dtype_of(x))
        self.check_input(shape, axes, dtype)
        return axes, dtype, native(dtype, x)

    def compute(self, x: Any, axes: tuple[int, ...] | None) -> Any:
        raise NotImplementedError
