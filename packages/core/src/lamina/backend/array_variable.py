"""`ArrayVariable`: the variable of a backend whose arrays are replaced, never updated in place."""

from __future__ import annotations

from typing import Any

from lamina.variables.variable import Variable


class ArrayVariable(Variable):
    """A `Variable` whose state is one native array, swapped for a new one on each assignment.

    What NumPy-like adapters share: the subclass says only how a value becomes its array
    (`to_array`), and overrides `_initialize` or `_direct_assign` where storing needs more
    (a sharding to place, a traced value to refuse).

    Example:
        >>> import numpy as np
        >>> from lamina.backend.kit import ArrayVariable
        >>> class HostVariable(ArrayVariable):
        ...     def to_array(self, value, dtype):
        ...         return np.array(value, dtype=dtype)
    """

    _array: Any

    def to_array(self, value: Any, dtype: str) -> Any:
        """`value` (a Python number, a NumPy or native array) as a native array of `dtype`."""
        raise NotImplementedError

    def _initialize(self, value: Any) -> None:
        self._array = value

    def _direct_assign(self, value: Any) -> None:
        self._array = value

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        return self.to_array(value, dtype)

    def _stored_value(self) -> Any:
        return self._array
