"""Variables holding a NumPy array."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.backend.kit import ArrayVariable, to_numpy_dtype


class NumpyVariable(ArrayVariable):
    """A `lamina.Variable` whose state is a NumPy array on the host."""

    _array: np.ndarray[Any, Any]

    def to_array(self, value: Any, dtype: str) -> Any:
        return np.array(value, dtype=to_numpy_dtype(dtype))
