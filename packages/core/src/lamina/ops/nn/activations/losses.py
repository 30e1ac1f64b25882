"""Cross-entropy losses (per sample, unreduced) and PSNR.

Probabilities are clipped to ``[epsilon(), 1 - epsilon()]`` before the log, as Keras does.
"""

from __future__ import annotations

from typing import Any

from lamina.backend.config import SETTINGS
from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.nn.activations._common import float_dtype, number, ranked, same_shape
from lamina.ops.shapes import Shape, canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "binary_crossentropy",
    "categorical_crossentropy",
    "psnr",
    "sparse_categorical_crossentropy",
]


class _Loss(Op):
    def __init__(self, from_logits: bool = False, axis: int = -1, name: str | None = None):
        super().__init__(name=name)
        if not isinstance(from_logits, bool):
            raise TypeError(
                f"`{self.op_name}`: argument `from_logits` must be a bool. "
                f"Received: from_logits={from_logits!r}"
            )
        self.from_logits = from_logits
        self.axis = axis

    def output_shape(self, target: Any, output: Any) -> tuple[Shape, int]:
        raise NotImplementedError

    def output_dtype(self, target: Any, output: Any) -> str:
        return float_dtype(self.op_name, target, output)

    def compute_output_spec(self, target: Any, output: Any) -> SymbolicTensor:
        shape, _ = self.output_shape(target, output)
        return SymbolicTensor(shape, self.output_dtype(target, output))

    def call(self, target: Any, output: Any) -> Any:
        axis, dtype = memo(self, (target, output), lambda: self._checked_axis_dtype(target, output))
        return self.compute(to_tensor(target, dtype), to_tensor(output, dtype), axis)

    def _checked_axis_dtype(self, target: Any, output: Any) -> tuple[int, str]:
        """Check the shapes and dtypes; return the class axis and the compute dtype."""
        _, axis = self.output_shape(target, output)
        return axis, self.output_dtype(target, output)

    def compute(self, target: Any, output: Any, axis: int) -> Any:
        raise NotImplementedError


class BinaryCrossentropy(_Loss):
    def output_shape(self, target: Any, output: Any) -> tuple[Shape, int]:
        shape = same_shape(
            self.op_name, static_shape(target), static_shape(output), ("target", "output")
        )
        return shape, -1

    def compute(self, target: Any, output: Any, axis: int) -> Any:
        return composite("nn", "binary_crossentropy")(
            target, output, self.from_logits, SETTINGS.epsilon
        )


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Binary cross-entropy between `target` and `output`, element-wise (no reduction).

    Args:
        target: the true labels (0 or 1, or probabilities).
        output: predicted probabilities, or logits when `from_logits`.
        from_logits: whether `output` holds logits.

    Returns:
        A tensor of `output`'s shape.

    Example:
        >>> lamina.ops.binary_crossentropy(np.array([1.0]), np.array([0.5]))  # [0.6931472]
    """
    return BinaryCrossentropy(from_logits)(target, output)


class CategoricalCrossentropy(_Loss):
    def output_shape(self, target: Any, output: Any) -> tuple[Shape, int]:
        shape = same_shape(
            self.op_name, static_shape(target), ranked(self.op_name, output), ("target", "output")
        )
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        return shape[:axis] + shape[axis + 1 :], axis

    def compute(self, target: Any, output: Any, axis: int) -> Any:
        return composite("nn", "categorical_crossentropy")(
            target, output, self.from_logits, axis, SETTINGS.epsilon
        )


def categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Categorical cross-entropy between one-hot `target` and `output` along `axis`.

    Args:
        target: one-hot (or soft) labels, of `output`'s shape.
        output: predicted probabilities (renormalized to sum to 1), or logits.
        from_logits: whether `output` holds logits.
        axis: the class axis.

    Returns:
        A tensor of `output`'s shape without `axis`.

    Example:
        >>> lamina.ops.categorical_crossentropy(np.array([[0.0, 1.0]]), np.array([[0.5, 0.5]]))
    """
    return CategoricalCrossentropy(from_logits, axis)(target, output)


class SparseCategoricalCrossentropy(_Loss):
    def output_shape(self, target: Any, output: Any) -> tuple[Shape, int]:
        out_shape = ranked(self.op_name, output)
        axis = canonical_axis(self.op_name, self.axis, len(out_shape))
        expected = out_shape[:axis] + out_shape[axis + 1 :]
        t_shape = static_shape(target)
        if len(t_shape) == len(out_shape) and t_shape[-1] == 1:
            t_shape = t_shape[:-1]
        shape = same_shape(self.op_name, t_shape, expected, ("target", "output without axis"))
        return shape, axis

    def output_dtype(self, target: Any, output: Any) -> str:
        if dtypes.dtype_of(target) in (*dtypes.COMPLEXES, "string"):
            raise TypeError(
                f"`{self.op_name}`: argument `target` must hold integer class indices. "
                f"Received: dtype={dtypes.dtype_of(target)}"
            )
        return float_dtype(self.op_name, output)

    def call(self, target: Any, output: Any) -> Any:
        axis, dtype = memo(self, (target, output), lambda: self._checked_axis_dtype(target, output))
        t_dtype = dtypes.dtype_of(target)
        target = to_tensor(target, t_dtype if t_dtype in dtypes.INTS else "int32")
        return composite("nn", "sparse_categorical_crossentropy")(
            target, to_tensor(output, dtype), self.from_logits, axis, SETTINGS.epsilon
        )


def sparse_categorical_crossentropy(
    target: Any, output: Any, from_logits: bool = False, axis: int = -1
) -> Any:
    """Categorical cross-entropy with integer class indices as `target`.

    Args:
        target: integer labels, of `output`'s shape without `axis` (a trailing size-1 dim
            is dropped). Out-of-range labels give a loss of 0.
        output: predicted probabilities (renormalized to sum to 1), or logits.
        from_logits: whether `output` holds logits.
        axis: the class axis of `output`.

    Returns:
        A tensor of `output`'s shape without `axis`.

    Example:
        >>> lamina.ops.sparse_categorical_crossentropy(np.array([1]), np.array([[0.5, 0.5]]))
    """
    return SparseCategoricalCrossentropy(from_logits, axis)(target, output)


class Psnr(Op):
    def __init__(self, max_val: Any, name: str | None = None) -> None:
        super().__init__(name=name)
        if not isinstance(max_val, (int, float)) or isinstance(max_val, bool):
            try:
                bad = dtypes.dtype_of(max_val) in (*dtypes.COMPLEXES, "string", "bool")
            except ValueError:
                bad = True
            if bad:
                raise TypeError(
                    f"`{self.op_name}`: argument `max_val` must be a real number or tensor. "
                    f"Received: max_val={max_val!r}"
                )
        else:
            number(self.op_name, "max_val", max_val)
            if max_val <= 0:
                raise ValueError(
                    f"`{self.op_name}`: argument `max_val` must be positive. "
                    f"Received: max_val={max_val!r}"
                )
        self.max_val = max_val

    def check(self, x1: Any, x2: Any) -> str:
        same_shape(self.op_name, static_shape(x1), static_shape(x2), ("x1", "x2"))
        return float_dtype(self.op_name, x1, x2)

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        return SymbolicTensor((), self.check(x1, x2))

    def call(self, x1: Any, x2: Any) -> Any:
        dtype = self.check(x1, x2)
        return composite("nn", "psnr")(
            to_tensor(x1, dtype), to_tensor(x2, dtype), to_tensor(self.max_val, dtype)
        )


def psnr(x1: Any, x2: Any, max_val: Any) -> Any:
    """Peak signal-to-noise ratio, ``20 log10(max_val) - 10 log10(mean((x1 - x2)**2))``.

    Args:
        x1: first image tensor.
        x2: second image tensor, of `x1`'s shape.
        max_val: the largest possible pixel value (e.g. 1.0 or 255).

    Returns:
        A scalar tensor, in decibels.

    Example:
        >>> lamina.ops.psnr(np.zeros((2, 2)), np.full((2, 2), 0.1), 1.0)  # 20.0
    """
    return Psnr(max_val)(x1, x2)
