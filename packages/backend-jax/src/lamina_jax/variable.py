"""Variables holding a jax.Array (immutable: assignment swaps the array)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from lamina.ops.dtypes import to_numpy_dtype
from lamina.variables.variable import Variable


class JaxVariable(Variable):
    """A `lamina.Variable` whose state is a `jax.Array`."""

    _array: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # A layer may build inside a trace (compute_output_spec runs under eval_shape):
        # the initial value depends on nothing traced, so compute it for real.
        with jax.ensure_compile_time_eval():
            super().__init__(*args, **kwargs)

    def _initialize(self, value: Any) -> None:
        self._array = value

    def _direct_assign(self, value: Any) -> None:
        self._array = value

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        return jnp.asarray(value, dtype=to_numpy_dtype(dtype))

    def _stored_value(self) -> Any:
        return self._array

    def __jax_array__(self) -> Any:
        return self.value
