"""What every composite module needs: the active backend and typed scalar constants."""

from __future__ import annotations

from typing import Any

from lamina.backend.protocol import Backend
from lamina.backend.protocols._types import Tensor
from lamina.ops.dispatch import backend
from lamina.ops.dtypes import dtype_of

__all__ = ["Backend", "Tensor", "backend", "const", "dtype_of"]


def const(x: Tensor | None, value: Any, dtype: str | None = None) -> Tensor:
    """`value` as a 0-d tensor of `x`'s dtype (or `dtype`).

    Composites never mix a native tensor with a Python float: NumPy widens bfloat16 to
    float32 that way, and TensorFlow refuses a float for an int tensor.
    """
    dtype = dtype or dtype_of(x)
    if dtype == "bool":
        value = bool(value)
    return backend().core.convert_to_tensor(value, dtype)
