"""Type aliases shared by the protocols."""

from __future__ import annotations

from typing import Any, TypeAlias

Tensor: TypeAlias = Any
"""A backend's native array (jax.Array, torch.Tensor, tf.Tensor, numpy.ndarray)."""

DType: TypeAlias = str
"""A standardized dtype name such as ``"float32"``; backends never see native dtypes."""

Shape: TypeAlias = tuple[int | None, ...]
Axis: TypeAlias = int | tuple[int, ...] | None

Pytrees: TypeAlias = tuple[Any, ...]
"""A tuple of nested structures of tensors (the primals, tangents and results of `jvp`)."""
