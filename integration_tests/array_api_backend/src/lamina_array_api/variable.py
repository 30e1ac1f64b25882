"""Variables holding an array-API array."""

from __future__ import annotations

from typing import Any

from lamina.backend.kit import Variable
from lamina_array_api.core import convert_to_tensor


class ArrayApiVariable(Variable):
    """A `lamina.Variable` whose state is an `array_api_strict` array, replaced on assign."""

    _array: Any

    def _initialize(self, value: Any) -> None:
        self._array = value

    def _direct_assign(self, value: Any) -> None:
        self._array = value

    def _convert_to_tensor(self, value: Any, dtype: str) -> Any:
        if isinstance(value, Variable):
            value = value.value
        return convert_to_tensor(value, dtype)

    def _stored_value(self) -> Any:
        return self._array
