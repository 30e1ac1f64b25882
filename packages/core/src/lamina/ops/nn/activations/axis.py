"""Activations that normalize or split along an axis: softmax, log_softmax, sparsemax, glu."""

from __future__ import annotations

from typing import Any

from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, native, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.nn.activations._common import float_dtype, ranked
from lamina.ops.shapes import Shape, canonical_axes, canonical_axis
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["glu", "log_softmax", "softmax", "sparsemax"]


class _AlongAxes(Op):
    """Float output of `x`'s shape, normalized along `axis` (an int, a tuple or None: all)."""

    def __init__(self, axis: Any = -1, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def axes(self, shape: Shape) -> tuple[int, ...]:
        axes = canonical_axes(self.op_name, self.axis, len(shape))
        return tuple(range(len(shape))) if axes is None else axes

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        self.axes(ranked(self.op_name, x))
        return SymbolicTensor(ranked(self.op_name, x), float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        axes, dtype, ready = memo(self, (x,), lambda: self._checked(x))
        return self.compute(x if ready else to_tensor(x, dtype), axes)

    def _checked(self, x: Any) -> tuple[tuple[int, ...], str, bool]:
        axes = self.axes(ranked(self.op_name, x))
        dtype = float_dtype(self.op_name, x)
        return axes, dtype, native(dtype, x)

    def compute(self, x: Any, axes: tuple[int, ...]) -> Any:
        raise NotImplementedError


class Softmax(_AlongAxes):
    def compute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return backend().nn.softmax(x, axes)


def softmax(x: Any, axis: Any = -1) -> Any:
    """Softmax, ``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        x: input tensor (rank >= 1).
        axis: the axis or axes to normalize over (None: all).

    Example:
        >>> lamina.ops.softmax(np.array([0.0, 0.0]))  # [0.5, 0.5]
    """
    return Softmax(axis)(x)


class LogSoftmax(_AlongAxes):
    def compute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return composite("nn", "log_softmax")(x, axes)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    """Log-softmax, ``x - logsumexp(x, axis)``.

    Args:
        x: input tensor (rank >= 1).
        axis: the axis or axes to normalize over (None: all).

    Example:
        >>> lamina.ops.log_softmax(np.array([0.0, 0.0]))  # [-0.6931472, -0.6931472]
    """
    return LogSoftmax(axis)(x)


class Sparsemax(_AlongAxes):
    def axes(self, shape: Shape) -> tuple[int, ...]:
        return (canonical_axis(self.op_name, self.axis, len(shape)),)

    def compute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return composite("nn", "sparsemax")(x, axes[0])


def sparsemax(x: Any, axis: int = -1) -> Any:
    """Sparsemax: the Euclidean projection of `x` onto the probability simplex along `axis`.

    Example:
        >>> lamina.ops.sparsemax(np.array([2.0, 0.0]))  # [1., 0.]
    """
    return Sparsemax(axis)(x)


class Glu(Op):
    def __init__(self, axis: int = -1, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis

    def output_shape(self, x: Any) -> tuple[Shape, int]:
        shape = ranked(self.op_name, x)
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        size = shape[axis]
        if size is not None and size % 2:
            raise ValueError(
                f"`{self.op_name}`: the size of `x` along `axis` must be even. "
                f"Received: x.shape={shape}, axis={self.axis}"
            )
        half = None if size is None else size // 2
        return shape[:axis] + (half,) + shape[axis + 1 :], axis

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self.output_shape(x)[0], float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        _, axis = self.output_shape(x)
        return composite("nn", "glu")(to_tensor(x, float_dtype(self.op_name, x)), axis)


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: split `x` in halves ``a, b`` along `axis`, return ``a * sigmoid(b)``.

    Args:
        x: input tensor whose size along `axis` is even.
        axis: the axis to split.

    Example:
        >>> lamina.ops.glu(np.array([1.0, 0.0]))  # [0.5]
    """
    return Glu(axis)(x)
