"""`Dot`: per-sample dot products between two tensors (a batched contraction)."""

from __future__ import annotations

import string
from typing import Any

from lamina import ops
from lamina.layers.merging.base_merge import Merge
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


class Dot(Merge):
    """Contract axis ``axes[0]`` of the first input with axis ``axes[1]`` of the second,
    sample by sample: ``(b, n, d) . (b, m, d)`` with ``axes=2`` gives ``(b, n, m)``.

    Two rank-2 inputs give ``(batch, 1)``. With ``normalize=True`` both inputs are
    L2-normalized along their contracted axes first, so the result is a cosine similarity.

    Args:
        axes: one axis for both inputs, or a pair ``(axis_of_x, axis_of_y)``; the batch
            axis 0 cannot be contracted.
        normalize: whether to L2-normalize the inputs along the contracted axes.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.Dot(axes=1)([np.ones((2, 3)), np.ones((2, 3))])
    """

    _min_inputs = 2

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        pair = (axes, axes) if isinstance(axes, int) and not isinstance(axes, bool) else axes
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or any(isinstance(a, bool) or not isinstance(a, int) for a in pair)
        ):
            raise ValueError(
                "Dot: argument `axes` must be an int or a pair of ints. "
                f"Received: axes={axes!r}"
            )
        self.axes: int | tuple[int, int] = axes if isinstance(axes, int) else tuple(axes)
        self.normalize = bool(normalize)
        self.supports_masking = False

    def _check_inputs(self, inputs: Any) -> list[Any]:
        tensors = super()._check_inputs(inputs)
        if len(tensors) != 2:
            raise ValueError(
                f"Dot: a Dot layer must be called on exactly 2 inputs. "
                f"Received: {len(tensors)} inputs"
            )
        return tensors

    def _resolved_axes(self, shape_x: tuple[Any, ...], shape_y: tuple[Any, ...]) -> tuple[int, int]:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        out = []
        for axis, shape in zip(pair, (shape_x, shape_y)):
            rank = len(shape)
            if not -rank <= axis < rank or axis % rank == 0:
                raise ValueError(
                    f"Dot: argument `axes` must name a non-batch axis of inputs of rank "
                    f"{rank}. Received: axes={self.axes!r}"
                )
            out.append(axis % rank)
        ax, ay = out
        if shape_x[ax] is not None and shape_y[ay] is not None and shape_x[ax] != shape_y[ay]:
            raise ValueError(
                f"Dot: the contracted axes have different sizes ({shape_x[ax]} and "
                f"{shape_y[ay]}). Received: input shapes {shape_x} and {shape_y}, "
                f"axes={self.axes!r}"
            )
        return ax, ay

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape_x, shape_y = (tuple(s) for s in self._check_inputs(input_shape))
        ax, ay = self._resolved_axes(shape_x, shape_y)
        rest_x = [d for i, d in enumerate(shape_x[1:], 1) if i != ax]
        rest_y = [d for i, d in enumerate(shape_y[1:], 1) if i != ay]
        rest = rest_x + rest_y
        return (shape_x[0], *(rest or [1]))

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        x, y = self._check_inputs(inputs)
        shape = self.compute_output_shape([x.shape, y.shape])
        dtype = dtypes.result_type(dtypes.dtype_of(x), dtypes.dtype_of(y))
        return SymbolicTensor(shape, dtype=dtype)

    def _merge_function(self, inputs: list[Any]) -> Any:
        x, y = inputs
        ax, ay = self._resolved_axes(tuple(x.shape), tuple(y.shape))
        if self.normalize:
            x = ops.normalize(x, axis=ax, order=2)
            y = ops.normalize(y, axis=ay, order=2)
        letters = iter(string.ascii_lowercase[2:])
        spec_x = "a" + "".join("b" if i == ax else next(letters) for i in range(1, len(x.shape)))
        spec_y = "a" + "".join("b" if i == ay else next(letters) for i in range(1, len(y.shape)))
        spec_out = "a" + spec_x[1:].replace("b", "") + spec_y[1:].replace("b", "")
        out = ops.einsum(f"{spec_x},{spec_y}->{spec_out}", x, y)
        if len(spec_out) == 1:
            out = ops.expand_dims(out, -1)
        return out

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return None

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "axes": self.axes if isinstance(self.axes, int) else list(self.axes),
                "normalize": self.normalize,
            }
        )
        return config


def dot(inputs: list[Any], axes: Any = -1, normalize: bool = False, **kwargs: Any) -> Any:
    """Functional form of `Dot`: ``Dot(axes, normalize, **kwargs)(inputs)``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
