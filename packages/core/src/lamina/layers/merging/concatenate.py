"""`Concatenate`: join a list of tensors along one axis."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.merging.base_merge import Merge
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


class Concatenate(Merge):
    """Join tensors along `axis`; every other axis must match.

    Masks are concatenated along `axis` too (inputs without one count as all True);
    concatenating on the feature axis keeps a step where every input keeps it.

    Args:
        axis: the axis to join along.
        **kwargs: base `Layer` arguments.

    Example:
        >>> tuple(lamina.layers.Concatenate()([np.ones((2, 3)), np.ones((2, 4))]).shape)
        (2, 7)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(
                f"Concatenate: argument `axis` must be an int. Received: axis={axis!r}"
            )
        self.axis = axis

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shapes = [tuple(s) for s in self._check_inputs(input_shape)]
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes) or not -rank <= self.axis < rank:
            raise ValueError(
                f"Concatenate: inputs must have the same rank, with axis={self.axis} within it. "
                f"Received: input shapes {shapes}"
            )
        axis = self.axis % rank
        out: list[Any] = []
        for i in range(rank):
            sizes = [s[i] for s in shapes]
            if i == axis:
                out.append(None if any(d is None for d in sizes) else sum(sizes))
                continue
            known = {d for d in sizes if d is not None}
            if len(known) > 1:
                raise ValueError(
                    "Concatenate: inputs must match on every axis except the concatenation "
                    f"axis ({self.axis}). Received: input shapes {shapes}"
                )
            out.append(known.pop() if known else None)
        return tuple(out)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        tensors = self._check_inputs(inputs)
        shape = self.compute_output_shape([t.shape for t in tensors])
        dtype = dtypes.result_type(*[dtypes.dtype_of(t) for t in tensors])
        return SymbolicTensor(shape, dtype=dtype)

    def _merge_function(self, inputs: list[Any]) -> Any:
        return ops.concatenate(inputs, axis=self.axis)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        if previous_mask is None:
            return None
        if not isinstance(previous_mask, (list, tuple)) or len(previous_mask) != len(inputs):
            raise ValueError(
                "Concatenate: `mask` must be a list with one entry per input "
                f"({len(inputs)}). Received: mask={previous_mask!r}"
            )
        if all(m is None for m in previous_mask):
            return None
        full = []
        for x, m in zip(inputs, previous_mask):
            ones = ops.ones_like(x, dtype="bool")
            if m is None:
                full.append(ones)
                continue
            m = ops.cast(m, "bool")
            if len(m.shape) < len(x.shape):
                m = ops.expand_dims(m, -1)
            full.append(ops.logical_and(m, ones))
        joined = ops.concatenate(full, axis=self.axis)
        return ops.all(joined, axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["axis"] = self.axis
        return config


def concatenate(inputs: list[Any], axis: int = -1, **kwargs: Any) -> Any:
    """Functional form of `Concatenate`: ``Concatenate(axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)
