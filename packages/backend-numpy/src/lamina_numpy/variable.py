"""Variables holding a NumPy array."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.backend.kit import Variable, to_numpy_dtype


class NumpyVariable(Variable):
    """A `lamina.Variable` whose state is a NumPy array on the host."""

    _array: np.ndarray[Any, Any]

    def _initialize(self, value: Any) -> None:
        self._array = value

    def _direct_assign(self, value: Any) -> None:
        self._array = value

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        return np.array(value, dtype=to_numpy_dtype(dtype))

    def _stored_value(self) -> Any:
        return self._array
