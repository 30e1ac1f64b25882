"""Variables holding a jax.Array (immutable: assignment swaps the array).

A `JaxVariable` is a JAX pytree node whose one child is its value, so variables pass
straight into JAX transformations (``jax.jit(f)(model.trainable_variables, x)``,
``jax.grad``, ``jax.tree.map``). Rebuilding the tree gives plain arrays, not variables:
inside a transformation a variable stands for its value (as the ``__jax_array__``
conversion of older JAX did), and what comes out (new values, gradients) is what
`Variable.assign` and `Optimizer.apply` take.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jax
import jax.numpy as jnp

from lamina.backend.kit import ArrayVariable, to_numpy_dtype
from lamina_jax import distribution


class JaxVariable(ArrayVariable):
    """A `lamina.Variable` whose state is a `jax.Array`."""

    _array: Any
    sharding: Any = None
    """The `jax.sharding.Sharding` a `lamina.distribution` strategy placed it on (None
    without one)."""

    def __init__(self, initializer: Any, *args: Any, **kwargs: Any) -> None:
        # A layer may build inside a trace (compute_output_spec runs under eval_shape):
        # the initial value depends on nothing traced, so compute it for real.
        with jax.ensure_compile_time_eval():
            super().__init__(distribution.under_layout(self, initializer), *args, **kwargs)

    def _initialize(self, value: Any) -> None:
        self._array = distribution.place(self, value)

    def _direct_assign(self, value: Any) -> None:
        if isinstance(value, jax.core.Tracer):
            # Stored, the tracer would outlive its trace and fail at the next read.
            raise ValueError(
                f"Variable {self.path!r} was assigned a value traced by a JAX transformation "
                "(jax.jit, jax.grad, lax control flow) outside a `StatelessScope`, so the "
                "new value cannot be kept. Run the code with the variable's value passed in "
                "and returned (`layer.stateless_call`, or `lamina.StatelessScope` with "
                "`state_mapping`), or give random ops an explicit `seed`. "
                f"Received: value={value!r}"
            )
        self._array = distribution.place(self, value)

    def to_array(self, value: Any, dtype: str) -> Any:
        return jnp.asarray(value, dtype=to_numpy_dtype(dtype))

    def __jax_array__(self) -> Any:
        return self.value


def _flatten(variable: JaxVariable) -> tuple[tuple[Any], None]:
    # The value in the current scope (stateless or autocast), as `__jax_array__` reads it.
    return (variable.value,), None


def _flatten_with_keys(variable: JaxVariable) -> tuple[tuple[tuple[Any, Any]], None]:
    return ((jax.tree_util.GetAttrKey("value"), variable.value),), None


def _unflatten(aux: None, children: Iterable[Any]) -> Any:
    (value,) = children
    return value


jax.tree_util.register_pytree_with_keys(JaxVariable, _flatten_with_keys, _unflatten, _flatten)
