"""Element-wise activations: integer and bool inputs become floatx, floats keep their dtype."""

from __future__ import annotations

from typing import Any

from lamina.ops.composites import composite
from lamina.ops.dispatch import backend
from lamina.ops.nn.activations._common import Activation, number

__all__ = [
    "celu",
    "elu",
    "gelu",
    "hard_shrink",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "leaky_relu",
    "log_sigmoid",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_shrink",
    "softplus",
    "softsign",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "swish",
    "tanh_shrink",
    "threshold",
]


class Relu(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "relu")(x)


def relu(x: Any) -> Any:
    """Rectified linear unit, ``max(x, 0)``.

    Example:
        >>> lamina.ops.relu(np.array([-1.0, 0.0, 2.0]))  # [0., 0., 2.]
    """
    return Relu()(x)


class Relu6(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "relu6")(x)


def relu6(x: Any) -> Any:
    """Rectified linear unit capped at 6, ``min(max(x, 0), 6)``.

    Example:
        >>> lamina.ops.relu6(np.array([-1.0, 3.0, 8.0]))  # [0., 3., 6.]
    """
    return Relu6()(x)


class Sigmoid(Activation):
    def compute(self, x: Any) -> Any:
        return backend().nn.sigmoid(x)


def sigmoid(x: Any) -> Any:
    """Logistic sigmoid, ``1 / (1 + exp(-x))``.

    Example:
        >>> lamina.ops.sigmoid(np.array([0.0]))  # [0.5]
    """
    return Sigmoid()(x)


class SparseSigmoid(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "sparse_sigmoid")(x)


def sparse_sigmoid(x: Any) -> Any:
    """Piecewise-linear sigmoid: 0 below -1, 1 above 1, ``(x + 1) / 2`` between.

    Example:
        >>> lamina.ops.sparse_sigmoid(np.array([-2.0, 0.0, 2.0]))  # [0., 0.5, 1.]
    """
    return SparseSigmoid()(x)


class Softplus(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "softplus")(x)


def softplus(x: Any) -> Any:
    """Softplus, ``log(1 + exp(x))``, computed stably.

    Example:
        >>> lamina.ops.softplus(np.array([0.0]))  # [0.6931472]
    """
    return Softplus()(x)


class Softsign(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "softsign")(x)


def softsign(x: Any) -> Any:
    """Softsign, ``x / (1 + |x|)``.

    Example:
        >>> lamina.ops.softsign(np.array([1.0]))  # [0.5]
    """
    return Softsign()(x)


class SparsePlus(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "sparse_plus")(x)


def sparse_plus(x: Any) -> Any:
    """SparsePlus: 0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between.

    Example:
        >>> lamina.ops.sparse_plus(np.array([-2.0, 0.0, 2.0]))  # [0., 0.25, 2.]
    """
    return SparsePlus()(x)


class Silu(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "silu")(x)


def silu(x: Any) -> Any:
    """Sigmoid linear unit (swish), ``x * sigmoid(x)``.

    Example:
        >>> lamina.ops.silu(np.array([0.0, 1.0]))  # [0., 0.7310586]
    """
    return Silu()(x)


class Swish(Silu):
    pass


def swish(x: Any) -> Any:
    """Swish, ``x * sigmoid(x)`` (the same function as `silu`).

    Example:
        >>> lamina.ops.swish(np.array([1.0]))  # [0.7310586]
    """
    return Swish()(x)


class LogSigmoid(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "log_sigmoid")(x)


def log_sigmoid(x: Any) -> Any:
    """Logarithm of the sigmoid, ``-softplus(-x)``, computed stably.

    Example:
        >>> lamina.ops.log_sigmoid(np.array([0.0]))  # [-0.6931472]
    """
    return LogSigmoid()(x)


class HardSigmoid(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "hard_sigmoid")(x)


def hard_sigmoid(x: Any) -> Any:
    """Hard sigmoid, ``relu6(x + 3) / 6``.

    Example:
        >>> lamina.ops.hard_sigmoid(np.array([-4.0, 0.0, 4.0]))  # [0., 0.5, 1.]
    """
    return HardSigmoid()(x)


class HardSilu(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "hard_silu")(x)


def hard_silu(x: Any) -> Any:
    """Hard SiLU (hard swish), ``x * relu6(x + 3) / 6``.

    Example:
        >>> lamina.ops.hard_silu(np.array([-4.0, 0.0, 4.0]))  # [0., 0., 4.]
    """
    return HardSilu()(x)


class HardSwish(HardSilu):
    pass


def hard_swish(x: Any) -> Any:
    """Hard swish, ``x * relu6(x + 3) / 6`` (the same function as `hard_silu`).

    Example:
        >>> lamina.ops.hard_swish(np.array([1.0]))  # [0.6666667]
    """
    return HardSwish()(x)


class Selu(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "selu")(x)


def selu(x: Any) -> Any:
    """Scaled exponential linear unit, ``scale * elu(x, alpha)`` with the SELU constants.

    Example:
        >>> lamina.ops.selu(np.array([1.0]))  # [1.050701]
    """
    return Selu()(x)


class TanhShrink(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "tanh_shrink")(x)


def tanh_shrink(x: Any) -> Any:
    """Tanh shrink, ``x - tanh(x)``.

    Example:
        >>> lamina.ops.tanh_shrink(np.array([1.0]))  # [0.23840584]
    """
    return TanhShrink()(x)


class HardTanh(Activation):
    def compute(self, x: Any) -> Any:
        return composite("nn", "hard_tanh")(x)


def hard_tanh(x: Any) -> Any:
    """Hard tanh, ``x`` clipped to ``[-1, 1]``.

    Example:
        >>> lamina.ops.hard_tanh(np.array([-2.0, 0.5, 2.0]))  # [-1., 0.5, 1.]
    """
    return HardTanh()(x)


class SoftShrink(Activation):
    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = number(self.op_name, "threshold", threshold, 0.0)

    def compute(self, x: Any) -> Any:
        return composite("nn", "soft_shrink")(x, self.threshold)


def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Soft shrinkage: ``x - threshold`` above it, ``x + threshold`` below ``-threshold``, else 0.

    Args:
        x: input tensor.
        threshold: a non-negative number.

    Example:
        >>> lamina.ops.soft_shrink(np.array([-1.0, 0.2, 1.0]))  # [-0.5, 0., 0.5]
    """
    return SoftShrink(threshold)(x)


class HardShrink(Activation):
    def __init__(self, threshold: float = 0.5, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = number(self.op_name, "threshold", threshold, 0.0)

    def compute(self, x: Any) -> Any:
        return composite("nn", "hard_shrink")(x, self.threshold)


def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Hard shrinkage: ``x`` where ``|x| > threshold``, else 0.

    Args:
        x: input tensor.
        threshold: a non-negative number.

    Example:
        >>> lamina.ops.hard_shrink(np.array([-1.0, 0.2, 1.0]))  # [-1., 0., 1.]
    """
    return HardShrink(threshold)(x)


class Squareplus(Activation):
    def __init__(self, b: float = 4, name: str | None = None) -> None:
        super().__init__(name=name)
        self.b = number(self.op_name, "b", b, 0.0)

    def compute(self, x: Any) -> Any:
        return composite("nn", "squareplus")(x, self.b)


def squareplus(x: Any, b: float = 4) -> Any:
    """Squareplus, ``(x + sqrt(x**2 + b)) / 2``.

    Args:
        x: input tensor.
        b: a non-negative smoothness parameter.

    Example:
        >>> lamina.ops.squareplus(np.array([0.0]))  # [1.]
    """
    return Squareplus(b)(x)


class LeakyRelu(Activation):
    def __init__(self, negative_slope: float = 0.2, name: str | None = None) -> None:
        super().__init__(name=name)
        self.negative_slope = number(self.op_name, "negative_slope", negative_slope)

    def compute(self, x: Any) -> Any:
        return composite("nn", "leaky_relu")(x, self.negative_slope)


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """Leaky ReLU, ``x`` for positive inputs and ``negative_slope * x`` otherwise.

    Example:
        >>> lamina.ops.leaky_relu(np.array([-1.0, 1.0]))  # [-0.2, 1.]
    """
    return LeakyRelu(negative_slope)(x)


class Elu(Activation):
    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.alpha = number(self.op_name, "alpha", alpha)

    def compute(self, x: Any) -> Any:
        return composite("nn", "elu")(x, self.alpha)


def elu(x: Any, alpha: float = 1.0) -> Any:
    """Exponential linear unit, ``x`` if positive else ``alpha * (exp(x) - 1)``.

    Example:
        >>> lamina.ops.elu(np.array([-1.0, 1.0]))  # [-0.63212055, 1.]
    """
    return Elu(alpha)(x)


class Celu(Activation):
    def __init__(self, alpha: float = 1.0, name: str | None = None) -> None:
        super().__init__(name=name)
        self.alpha = number(self.op_name, "alpha", alpha)
        if self.alpha == 0:
            raise ValueError(
                f"`{self.op_name}`: argument `alpha` must be non-zero. Received: alpha={alpha!r}"
            )

    def compute(self, x: Any) -> Any:
        return composite("nn", "celu")(x, self.alpha)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """Continuously differentiable ELU, ``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``.

    Example:
        >>> lamina.ops.celu(np.array([-1.0, 1.0]))  # [-0.63212055, 1.]
    """
    return Celu(alpha)(x)


class Gelu(Activation):
    def __init__(self, approximate: bool = True, name: str | None = None) -> None:
        super().__init__(name=name)
        if not isinstance(approximate, bool):
            raise TypeError(
                f"`{self.op_name}`: argument `approximate` must be a bool. "
                f"Received: approximate={approximate!r}"
            )
        self.approximate = approximate

    def compute(self, x: Any) -> Any:
        return composite("nn", "gelu")(x, self.approximate)


def gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit, ``x * Phi(x)``.

    Args:
        x: input tensor.
        approximate: whether to use the tanh approximation instead of the exact erf form.

    Example:
        >>> lamina.ops.gelu(np.array([1.0]))  # [0.841192]
    """
    return Gelu(approximate)(x)


class Threshold(Activation):
    def __init__(self, threshold: float, default_value: float, name: str | None = None) -> None:
        super().__init__(name=name)
        self.threshold = number(self.op_name, "threshold", threshold)
        self.default_value = number(self.op_name, "default_value", default_value)

    def compute(self, x: Any) -> Any:
        return composite("nn", "threshold")(x, self.threshold, self.default_value)


def threshold(x: Any, threshold: float, default_value: float) -> Any:
    """``x`` where ``x > threshold``, else `default_value`.

    Example:
        >>> lamina.ops.threshold(np.array([-1.0, 2.0]), 0.0, 5.0)  # [5., 2.]
    """
    return Threshold(threshold, default_value)(x)
