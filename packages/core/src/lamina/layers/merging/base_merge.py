"""`Merge`: the base of layers that combine a list of tensors into one."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.layer import Layer
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


def broadcast_shapes(where: str, shapes: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The element-wise result shape of `shapes` (NumPy broadcasting; None = unknown).

    Raises:
        ValueError: two known sizes differ and neither is 1.
    """
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    out: list[Any] = []
    for axis in range(rank):
        sizes = [s[axis] for s in padded]
        known = {d for d in sizes if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(
                f"{where}: inputs with shapes {[tuple(s) for s in shapes]} cannot be merged "
                f"element-wise (axis {axis} has sizes {sorted(known)})."
            )
        if known:
            out.append(known.pop())
        elif any(d is None for d in sizes):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


class Merge(Layer):
    """Combine a list of tensors element-wise with `_merge_function` (with broadcasting).

    The output mask is the logical AND of the inputs' masks (missing masks count as all
    True), so a step is kept only where every masked input keeps it.

    Args:
        **kwargs: base `Layer` arguments.
    """

    _min_inputs = 1

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check_inputs(self, inputs: Any) -> list[Any]:
        name = type(self).__name__
        # A bare shape (a tuple of ints) means the layer got one tensor, not a list.
        if not isinstance(inputs, (list, tuple)) or any(
            x is None or isinstance(x, int) for x in inputs
        ):
            raise ValueError(
                f"{name}: a merge layer must be called on a list of tensors. "
                f"Received: inputs={inputs!r} (of type {type(inputs).__name__})"
            )
        if len(inputs) < self._min_inputs:
            raise ValueError(
                f"{name}: expected at least {self._min_inputs} inputs. "
                f"Received: {len(inputs)} inputs"
            )
        return list(inputs)

    def build(self, input_shape: Any = None) -> None:
        shapes = self._check_inputs(input_shape)
        if all(s is not None for s in shapes):
            self.compute_output_shape(shapes)
        self.built = True

    def _merge_function(self, inputs: list[Any]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define `_merge_function`.")

    def call(self, inputs: Any) -> Any:
        return self._merge_function(self._check_inputs(inputs))

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = [tuple(s) for s in self._check_inputs(input_shape)]
        return broadcast_shapes(type(self).__name__, shapes)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        tensors = self._check_inputs(inputs)
        shape = self.compute_output_shape([t.shape for t in tensors])
        dtype = dtypes.result_type(*[dtypes.dtype_of(t) for t in tensors])
        return SymbolicTensor(shape, dtype=dtype)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        if previous_mask is None:
            return None
        if not isinstance(previous_mask, (list, tuple)) or len(previous_mask) != len(inputs):
            raise ValueError(
                f"{type(self).__name__}: `mask` must be a list with one entry per input "
                f"({len(inputs)}). Received: mask={previous_mask!r}"
            )
        masks = [m for m in previous_mask if m is not None]
        if not masks:
            return None
        out = masks[0]
        for m in masks[1:]:
            out = ops.logical_and(out, m)
        return out
