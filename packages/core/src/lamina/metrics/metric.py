"""`Metric`: state accumulated over batches in non-trainable variables.

The state lives in `lamina.Variable`s, so the stateless forms below are plain functions of
the variables' values: they run the stateful methods inside a `StatelessScope`, which reads
the given values and collects the assignments instead of applying them. That is what a
jitted JAX step needs, and it works unchanged on every backend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.config import name_scope, unique_name
from lamina.losses._checks import check_name
from lamina.losses.loss import loss_dtype
from lamina.ops import dtypes
from lamina.ops.operation import _snake_case
from lamina.variables.scopes import StatelessScope
from lamina.variables.variable import Variable


def _initializer(value: Any) -> Callable[..., Any]:
    """A ``(shape, dtype)`` callable for `value`: "zeros", "ones", or an initializer."""
    if isinstance(value, str):
        if value == "zeros":
            return lambda shape, dtype=None: np.zeros(shape, dtypes.to_numpy_dtype(dtype))
        if value == "ones":
            return lambda shape, dtype=None: np.ones(shape, dtypes.to_numpy_dtype(dtype))
        from lamina import initializers  # only other names need the initializer registry

        resolved: Callable[..., Any] = initializers.get(value)
        return resolved
    if not callable(value):
        raise TypeError(
            "Argument `initializer` must be an initializer name or a callable "
            f"`(shape, dtype)`. Received: initializer={value!r}"
        )
    return value


def result_value(result: Any) -> Any:
    """`result` with a `Variable` (or one in a dict of results) read as its value.

    A custom `result()` may return a state variable itself; a compiled step (jax.jit,
    tf.function, torch.compile) can only return its value, read inside the step.
    """
    if isinstance(result, Variable):
        return result.value
    if isinstance(result, dict):
        return {k: v.value if isinstance(v, Variable) else v for k, v in result.items()}
    return result


class Metric:
    """The base of every metric: accumulate with `update_state`, read with `result`.

    Subclasses create their state in `__init__` with `add_variable`, update it in
    `update_state` with the variables' `assign` methods, and compute the value from it in
    `result`. Metrics assigned as attributes of a metric are tracked too.

    Args:
        dtype: the dtype of the state and result (a dtype name or a `DTypePolicy`, whose
            compute dtype is used); default `lamina.config.floatx()`.
        name: the metric's name; its variables' paths start with it.

    Example:
        >>> m = lamina.metrics.Mean()
        >>> m.update_state([1.0, 3.0])
        >>> m.result()  # 2.0
    """

    _direction: str | None = None
    """"up" or "down" when larger or smaller values are better (callbacks read it)."""

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        check_name(type(self).__name__, name)
        self._name = name or unique_name(_snake_case(type(self).__name__))
        self._dtype = loss_dtype(dtype)
        self._variables: list[Variable] = []
        self._metrics: list[Metric] = []

    # --- identity -----------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def dtype(self) -> str:
        return self._dtype

    def __setattr__(self, key: str, value: Any) -> None:
        # Variables and metrics assigned as attributes join `variables`, as on a layer.
        if not key.startswith("__") and key not in ("_variables", "_metrics"):
            self._track(value)
        super().__setattr__(key, value)

    def _track(self, value: Any) -> None:
        tracked = self.__dict__.get("_variables")
        if tracked is None:
            return  # still in __init__, before the collections exist
        if isinstance(value, Variable) and all(v is not value for v in tracked):
            tracked.append(value)
        elif isinstance(value, Metric) and all(m is not value for m in self._metrics):
            self._metrics.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                self._track(item)

    # --- state --------------------------------------------------------------------------
    def add_variable(
        self,
        shape: Any,
        initializer: Any,
        dtype: Any = None,
        aggregation: str = "sum",
        name: str | None = None,
    ) -> Variable:
        """Create a non-trainable state variable whose path starts with the metric's name.

        Args:
            shape: the variable's shape.
            initializer: "zeros", "ones", an initializer name or a ``(shape, dtype)``
                callable.
            dtype: the variable's dtype (default: the metric's).
            aggregation: how replicas combine it (sum, mean, none, only_first_replica).
            name: the variable's name.
        """
        if "_variables" not in self.__dict__:
            raise RuntimeError(
                f"{type(self).__name__}.__init__ must call `super().__init__()` before "
                "`add_variable`."
            )
        with name_scope(self.name.replace("/", ">")):
            variable = Variable(
                initializer=_initializer(initializer),
                shape=tuple(shape),
                dtype=dtype or self.dtype,
                trainable=False,
                aggregation=aggregation,
                name=name,
            )
        self._track(variable)
        return variable

    def add_weight(
        self, shape: Any = (), initializer: Any = None, dtype: Any = None, name: str | None = None
    ) -> Variable:
        """Same as `add_variable` (the name older code uses)."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    @property
    def variables(self) -> list[Variable]:
        """The state: this metric's variables, then those of the metrics it holds."""
        out = list(self._variables)
        for metric in self._metrics:
            out.extend(v for v in metric.variables if all(v is not o for o in out))
        return out

    # --- the stateful API -----------------------------------------------------------------
    def update_state(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate the statistics of a batch."""
        raise NotImplementedError(f"{type(self).__name__} must implement `update_state`.")

    def result(self) -> Any:
        """The metric's value from the current state (a scalar, a tensor or a dict)."""
        raise NotImplementedError(f"{type(self).__name__} must implement `result`.")

    def reset_state(self) -> None:
        """Set every state variable back to zeros (called between epochs)."""
        for v in self.variables:
            v.assign(np.zeros(v.shape, dtypes.to_numpy_dtype(v.dtype)))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Update the state with one batch and return the new result."""
        self.update_state(*args, **kwargs)
        return self.result()

    # --- the stateless API (pure functions of the variables' values) -----------------------
    def _check_values(self, metric_variables: Any) -> list[Any]:
        values = list(metric_variables)
        if len(values) != len(self.variables):
            raise ValueError(
                "Argument `metric_variables` must hold one value per variable of "
                f"{type(self).__name__}().variables ({len(self.variables)}). "
                f"Received {len(values)} values."
            )
        return values

    def _collect(self, scope: StatelessScope) -> list[Any]:
        out = []
        for v in self.variables:
            new = scope.get_current_value(v)
            out.append(v.value if new is None else new)
        return out

    def stateless_update_state(self, metric_variables: Any, *args: Any, **kwargs: Any) -> list[Any]:
        """`update_state` as a pure function: the new variable values, nothing mutated.

        Args:
            metric_variables: the current values, in the order of `variables`.
            *args: passed to `update_state`.
            **kwargs: passed to `update_state`.

        Returns:
            The updated values, in the order of `variables`.

        Raises:
            ValueError: `metric_variables` has the wrong length.
        """
        mapping = list(zip(self.variables, self._check_values(metric_variables)))
        with StatelessScope(state_mapping=mapping) as scope:
            self.update_state(*args, **kwargs)
        return self._collect(scope)

    def stateless_result(self, metric_variables: Any) -> Any:
        """`result` computed from the given variable values."""
        mapping = list(zip(self.variables, self._check_values(metric_variables)))
        with StatelessScope(state_mapping=mapping):
            return result_value(self.result())

    def stateless_reset_state(self) -> list[Any]:
        """The variable values `reset_state` would set, nothing mutated."""
        with StatelessScope() as scope:
            self.reset_state()
        return self._collect(scope)

    # --- configs ----------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this metric (its state is not included)."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"
