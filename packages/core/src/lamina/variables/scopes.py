"""`StatelessScope` and `SymbolicScope`: run code without touching variables' real state."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from lamina.backend.config import STATELESS_SCOPE, SYMBOLIC_SCOPE
from lamina.backend.scoped import ScopedVarToken

if TYPE_CHECKING:
    from lamina.variables.variable import Variable


class StatelessScope:
    """Inside it, variables read the values given here and assignments are collected.

    This is how a pure function of the state is made from stateful layers: pass the
    values in `state_mapping`, run the layer, then read the new values with
    `get_current_value` instead of mutating the variables.

    Example:
        >>> layer = lamina.layers.Dense(2)
        >>> x = np.ones((1, 3), "float32")
        >>> _ = layer(x)  # builds the kernel
        >>> v = layer.kernel
        >>> new_value = np.zeros((3, 2), "float32")
        >>> with StatelessScope(state_mapping=[(v, new_value)]) as scope:
        ...     out = layer(x)
        ...     updated = scope.get_current_value(v)
    """

    def __init__(
        self,
        state_mapping: Any = None,
        collect_losses: bool = False,
        initialize_variables: bool = True,
    ) -> None:
        from lamina.variables.variable import Variable

        self.collect_losses = collect_losses
        self.initialize_variables = initialize_variables
        self.losses: list[Any] = []
        self._values: dict[int, Any] = {}
        for var, value in state_mapping or ():
            if not isinstance(var, Variable):
                raise ValueError(
                    "Argument `state_mapping` must be a list of (Variable, value) pairs. "
                    f"Received a key of type {type(var).__name__}: {var!r}"
                )
            self._values[id(var)] = var._convert_to_tensor(value, var.dtype)
        self._token: ScopedVarToken[Any] | None = None

    def add_update(self, variable: Variable, value: Any) -> None:
        """Record `value` as `variable`'s new value inside this scope."""
        self._values[id(variable)] = value

    def get_current_value(self, variable: Variable) -> Any:
        """The value `variable` has in this scope, or None if it was never given or set."""
        return self._values.get(id(variable))

    def add_loss(self, loss: Any) -> None:
        self.losses.append(loss)

    def __enter__(self) -> StatelessScope:
        self._token = STATELESS_SCOPE.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._token is not None
        STATELESS_SCOPE.reset(self._token)
        self._token = None


class SymbolicScope:
    """Inside it, layers and ops are being traced for shapes only (no real values)."""

    def __init__(self) -> None:
        self._token: ScopedVarToken[Any] | None = None

    def __enter__(self) -> SymbolicScope:
        self._token = SYMBOLIC_SCOPE.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._token is not None
        SYMBOLIC_SCOPE.reset(self._token)
        self._token = None


def in_stateless_scope() -> bool:
    return STATELESS_SCOPE.get() is not None


def get_stateless_scope() -> StatelessScope | None:
    scope: StatelessScope | None = STATELESS_SCOPE.get()
    return scope


def in_symbolic_scope() -> bool:
    return SYMBOLIC_SCOPE.get() is not None
