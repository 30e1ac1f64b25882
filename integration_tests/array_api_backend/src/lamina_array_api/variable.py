"""Variables holding an array-API array."""

from __future__ import annotations

from typing import Any

from lamina.backend.kit import ArrayVariable
from lamina_array_api.core import convert_to_tensor


class ArrayApiVariable(ArrayVariable):
    """A `lamina.Variable` whose state is an `array_api_strict` array, replaced on assign."""

    def to_array(self, value: Any, dtype: str) -> Any:
        return convert_to_tensor(value, dtype)
