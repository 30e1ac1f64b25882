"""`Variable`: named, persistent state. Each backend subclasses it to hold its own tensor."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.config import AUTOCAST_DTYPE, NAME_SCOPE, STATELESS_SCOPE
from lamina.ops import dtypes
from lamina.variables.scopes import get_stateless_scope

AGGREGATIONS = ("none", "mean", "sum", "only_first_replica")
SYNCHRONIZATIONS = ("none", "on_read", "on_write", "auto")
ALLOCATION_CHECK: contextvars.ContextVar[Callable[[str, tuple[int, ...], str], None] | None] = (
    contextvars.ContextVar("lamina_allocation_check", default=None)
)
"""Called as ``check(path, shape, dtype)`` before a variable's initializer allocates its
value; it raises to refuse the variable. Set by `lamina.layers.layer.initializers_skipped`."""


class Variable:
    """State that persists across calls: weights, optimizer slots, counters.

    Args:
        initializer: a value (array, tensor, scalar) or a callable ``(shape, dtype)`` such
            as ``lamina.initializers.GlorotUniform()``.
        shape: needed when `initializer` is a callable.
        dtype: defaults to the value's dtype, or `floatx()` for callables.
        trainable: whether optimizers update it.
        autocast: whether mixed-precision layers read it in their compute dtype.
        aggregation: how replicas combine it: none, mean, sum or only_first_replica.
        synchronization: when replicas sync it: none, on_read, on_write or auto.
        name: its name; its `path` adds the enclosing name scopes (``dense/kernel``).
        constraint: a callable applied to the value after each optimizer update.

    Subclasses implement `_initialize`, `_direct_assign` and `_convert_to_tensor`, and may
    implement `_direct_add`.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Variable:
        # `lamina.Variable(...)` makes the active backend's variable, as in Keras 3.
        if cls is Variable:
            from lamina.ops.dispatch import backend

            cls = backend().variable_class
        return super().__new__(cls)

    def __init__(
        self,
        initializer: Any,
        shape: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        aggregation: str = "none",
        synchronization: str = "auto",
        name: str | None = None,
        constraint: Callable[[Any], Any] | None = None,
    ) -> None:
        name = name or "variable"
        if not isinstance(name, str) or "/" in name:
            raise ValueError(
                f"Argument `name` must be a string without '/'. Received: name={name!r}"
            )
        if aggregation not in AGGREGATIONS:
            raise ValueError(
                f"Argument `aggregation` must be one of {AGGREGATIONS}. "
                f"Received: aggregation={aggregation!r}"
            )
        if synchronization not in SYNCHRONIZATIONS:
            raise ValueError(
                f"Argument `synchronization` must be one of {SYNCHRONIZATIONS}. "
                f"Received: synchronization={synchronization!r}"
            )
        if constraint is not None and not callable(constraint):
            raise ValueError(
                f"Argument `constraint` must be callable. Received: constraint={constraint!r}"
            )
        self.name = name
        self.path = "/".join((*NAME_SCOPE.get(), name))
        self.trainable = bool(trainable)
        self.autocast = bool(autocast)
        self.aggregation = aggregation
        self.synchronization = synchronization
        self.constraint = constraint
        self.regularizer: Any = None
        if callable(initializer):
            if shape is None:
                raise ValueError(
                    "Argument `shape` is required when `initializer` is callable. "
                    f"Received: initializer={initializer!r}, shape=None"
                )
            self._dtype = dtypes.standardize_dtype(dtype)
            self._shape = tuple(int(d) for d in shape)
            check = ALLOCATION_CHECK.get()
            if check is not None:
                check(self.path, self._shape, self._dtype)
            value = initializer(self._shape, dtype=self._dtype)
        else:
            value = initializer
            self._dtype = (
                dtypes.standardize_dtype(dtype) if dtype is not None else dtypes.dtype_of(value)
            )
            self._shape = tuple(int(d) for d in np.shape(np.asarray(self._numpy_of(value))))
            if shape is not None and tuple(shape) != self._shape:
                raise ValueError(
                    f"Argument `shape` {tuple(shape)} does not match the initial value's "
                    f"shape {self._shape} for variable {self.path!r}."
                )
        self._initialize(self._convert_to_tensor(value, self._dtype))

    # --- what a backend supplies -------------------------------------------------------
    def _initialize(self, value: Any) -> None:
        """Store `value` (already a native tensor of the right dtype) as the state."""
        raise NotImplementedError

    def _direct_assign(self, value: Any) -> None:
        """Replace the stored state with `value` (a native tensor of the right dtype)."""
        raise NotImplementedError

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        """`value` as this backend's native tensor of `dtype`."""
        raise NotImplementedError

    def _stored_value(self) -> Any:
        """The stored native tensor (outside any stateless scope)."""
        raise NotImplementedError

    # --- public behaviour ---------------------------------------------------------------
    @staticmethod
    def _numpy_of(value: Any) -> Any:
        if isinstance(value, Variable):
            return value.numpy()
        from lamina.ops.dispatch import backend

        b = backend()
        return b.core.convert_to_numpy(value) if b.core.is_tensor(value) else value

    @property
    def value(self) -> Any:
        """The current value as a native tensor (the scoped value in a StatelessScope).

        Inside a mixed-precision layer's call, float variables with `autocast` read in the
        layer's compute dtype.
        """
        scope = STATELESS_SCOPE.get()
        cast_to = AUTOCAST_DTYPE.get()
        if scope is None and cast_to is None:  # the eager hot path
            return self._stored_value()
        value = None
        if scope is not None:
            value = scope.get_current_value(self)
        if value is None:
            value = self._stored_value()
        if cast_to is None or cast_to == self._dtype or not self.autocast:
            return value
        if self._dtype in dtypes.FLOATS:  # mixed precision reads floats in the compute dtype
            from lamina.ops.core.conversion import cast

            value = cast(value, cast_to)
        return value

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numpy(self) -> np.ndarray[Any, Any]:
        """A NumPy copy of the current value."""
        from lamina.ops.dispatch import backend

        result: np.ndarray[Any, Any] = backend().core.convert_to_numpy(self.value)
        return result

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        out = self.numpy()
        return out.astype(dtype) if dtype is not None else out

    def assign(self, value: Any) -> Any:
        """Set the value (recorded in the scope instead inside a StatelessScope).

        Raises:
            ValueError: `value`'s shape differs from the variable's.
        """
        value = self._convert_to_tensor(value, self._dtype)
        got = tuple(int(d) for d in value.shape)
        if got != self._shape:
            raise ValueError(
                f"Cannot assign a value of shape {got} to variable {self.path!r} of shape "
                f"{self._shape}."
            )
        scope = get_stateless_scope()
        if scope is not None:
            scope.add_update(self, value)
        else:
            self._direct_assign(value)
        return value

    def assign_add(self, value: Any) -> Any:
        """Add `value` to the variable."""
        if get_stateless_scope() is None and self._direct_add(value, 1):
            return self.value
        from lamina.ops.numpy.elementwise import add

        return self.assign(add(self.value, value))

    def assign_sub(self, value: Any) -> Any:
        """Subtract `value` from the variable."""
        if get_stateless_scope() is None and self._direct_add(value, -1):
            return self.value
        from lamina.ops.numpy.elementwise import subtract

        return self.assign(subtract(self.value, value))

    def _direct_add(self, value: Any, sign: int) -> bool:
        """Add ``sign * value`` to the stored value in place and return True, where the
        backend can and the result is what assigning the sum would store; False leaves
        the sum to the generic path. Counters and metric totals update this way every
        step, so an adapter whose tensors update in place overrides it."""
        return False

    def __repr__(self) -> str:
        return f"<Variable path={self.path}, shape={self._shape}, dtype={self._dtype}>"

    # Arithmetic reads the value and goes through lamina.ops, so promotion is shared.
    def _binary(self, name: str, other: Any, reverse: bool = False) -> Any:
        from lamina.ops import numpy as lnp

        fn = getattr(lnp, name)
        return fn(other, self.value) if reverse else fn(self.value, other)

    def __add__(self, o: Any) -> Any:
        return self._binary("add", o)

    def __radd__(self, o: Any) -> Any:
        return self._binary("add", o, True)

    def __sub__(self, o: Any) -> Any:
        return self._binary("subtract", o)

    def __rsub__(self, o: Any) -> Any:
        return self._binary("subtract", o, True)

    def __mul__(self, o: Any) -> Any:
        return self._binary("multiply", o)

    def __rmul__(self, o: Any) -> Any:
        return self._binary("multiply", o, True)

    def __truediv__(self, o: Any) -> Any:
        return self._binary("true_divide", o)

    def __rtruediv__(self, o: Any) -> Any:
        return self._binary("true_divide", o, True)

    def __matmul__(self, o: Any) -> Any:
        return self._binary("matmul", o)

    def __rmatmul__(self, o: Any) -> Any:
        return self._binary("matmul", o, True)

    def __pow__(self, o: Any) -> Any:
        return self._binary("power", o)

    def __neg__(self) -> Any:
        from lamina.ops.numpy.elementwise import negative

        return negative(self.value)

    def __getitem__(self, key: Any) -> Any:
        from lamina.ops.numpy.shape import get_item

        return get_item(self.value, key)
