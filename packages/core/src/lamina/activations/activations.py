"""Activation functions of ``lamina.activations``, written with `lamina.ops`.

Each works on tensors of any backend and on symbolic tensors (functional models), since it
only composes ops. Argument checks run eagerly so bad hyper-parameters fail at the call.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from lamina import ops
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


def _number(where: str, name: str, value: Any, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{where}`: argument `{name}` must be a number. Received: {name}={value!r}"
        )
    number = float(value)
    if math.isnan(number) or (minimum is not None and number < minimum):
        bound = f">= {minimum}" if minimum is not None else "a number"
        raise ValueError(
            f"`{where}`: argument `{name}` must be {bound}. Received: {name}={value!r}"
        )
    return number


def _axis(where: str, axis: Any) -> Any:
    ok_int = isinstance(axis, numbers.Integral) and not isinstance(axis, bool)
    ok_tuple = isinstance(axis, (tuple, list)) and all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axis
    )
    if not (ok_int or ok_tuple):
        raise TypeError(
            f"`{where}`: argument `axis` must be an int or a tuple of ints. "
            f"Received: axis={axis!r}"
        )
    return int(axis) if ok_int else tuple(int(a) for a in axis)


def _float_input(x: Any) -> Any:
    """`x` as a tensor; ints become floatx so that activations give fractional values."""
    if not isinstance(x, SymbolicTensor):
        x = ops.convert_to_tensor(x)
    if not dtypes.is_float_dtype(ops.dtype(x)):
        x = ops.cast(x, dtypes.standardize_dtype(None))
    return x


def relu(
    x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0
) -> Any:
    """Rectified linear unit, optionally leaky, capped and shifted.

    ``f(x) = x`` for ``threshold < x < max_value``, ``max_value`` above it and
    ``negative_slope * (x - threshold)`` at or below `threshold`.

    Args:
        x: input tensor.
        negative_slope: slope below the threshold (>= 0).
        max_value: the cap (>= 0), or None for none.
        threshold: the value below which units are inactive.

    Returns:
        A tensor like `x`.

    Example:
        >>> lamina.activations.relu([-1.0, 0.5, 9.0], max_value=6.0)  # [0., 0.5, 6.]
    """
    plain = max_value is None and type(negative_slope) is float and type(threshold) is float
    if plain and negative_slope == 0.0 == threshold:  # every Dense's: nothing to check
        return ops.nn.relu(x)  # which computes ints and bools in floatx, as _float_input
    slope = _number("relu", "negative_slope", negative_slope, minimum=0.0)
    cap = None if max_value is None else _number("relu", "max_value", max_value, minimum=0.0)
    shift = _number("relu", "threshold", threshold)
    x = _float_input(x)
    if slope == 0.0 and cap is None and shift == 0.0:
        return ops.nn.relu(x)
    dtype = ops.dtype(x)
    zero = ops.zeros_like(x)
    active = ops.where(ops.greater(x, ops.cast(shift, dtype)), x, zero)
    if cap is not None:
        active = ops.minimum(active, ops.cast(cap, dtype))
    if slope == 0.0:
        return active
    below = ops.minimum(ops.subtract(x, ops.cast(shift, dtype)), zero)
    return ops.add(active, ops.multiply(below, ops.cast(slope, dtype)))


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """Leaky ReLU: ``x`` for positive x, ``negative_slope * x`` otherwise.

    Example:
        >>> lamina.activations.leaky_relu([-1.0, 2.0])  # [-0.2, 2.]
    """
    slope = _number("leaky_relu", "negative_slope", negative_slope)
    return ops.nn.leaky_relu(_float_input(x), negative_slope=slope)


def relu6(x: Any) -> Any:
    """ReLU capped at 6: ``min(max(x, 0), 6)``.

    Example:
        >>> lamina.activations.relu6([-1.0, 7.0])  # [0., 6.]
    """
    return ops.nn.relu6(_float_input(x))


def softmax(x: Any, axis: Any = -1) -> Any:
    """Softmax: exponentials normalized to sum to one along `axis` (an int or a tuple).

    Example:
        >>> lamina.activations.softmax([[1.0, 1.0]])  # [[0.5, 0.5]]
    """
    axis = _axis("softmax", axis)
    x = _float_input(x)
    if isinstance(axis, int) and len(x.shape) and x.shape[axis] == 1:
        warnings.warn(
            f"`softmax` over an axis of size 1 always gives 1. Received: shape={x.shape}, "
            f"axis={axis}",
            stacklevel=2,
        )
    return ops.nn.softmax(x, axis=axis)


def log_softmax(x: Any, axis: Any = -1) -> Any:
    """Logarithm of `softmax`, computed stably.

    Example:
        >>> lamina.activations.log_softmax([[0.0, 0.0]])  # [[-0.693, -0.693]]
    """
    return ops.nn.log_softmax(_float_input(x), axis=_axis("log_softmax", axis))


def elu(x: Any, alpha: float = 1.0) -> Any:
    """Exponential linear unit: ``x`` if positive, ``alpha * (exp(x) - 1)`` otherwise.

    Example:
        >>> lamina.activations.elu([-1.0, 1.0])  # [-0.632, 1.]
    """
    return ops.nn.elu(_float_input(x), alpha=_number("elu", "alpha", alpha))


def selu(x: Any) -> Any:
    """Scaled ELU with the self-normalizing constants (use with `lecun_normal`).

    Example:
        >>> lamina.activations.selu([1.0])  # [1.0507]
    """
    return ops.nn.selu(_float_input(x))


def celu(x: Any, alpha: float = 1.0) -> Any:
    """Continuously differentiable ELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Raises:
        ValueError: `alpha` is 0.

    Example:
        >>> lamina.activations.celu([-1.0], alpha=2.0)
    """
    value = _number("celu", "alpha", alpha)
    if value == 0.0:
        raise ValueError(f"`celu`: argument `alpha` must be non-zero. Received: alpha={alpha!r}")
    return ops.nn.celu(_float_input(x), alpha=value)


def gelu(x: Any, approximate: bool = False) -> Any:
    """Gaussian error linear unit ``x * P(X <= x)``; `approximate` uses the tanh formula.

    Example:
        >>> lamina.activations.gelu([1.0])  # [0.8413]
    """
    if not isinstance(approximate, bool):
        raise TypeError(
            "`gelu`: argument `approximate` must be a bool. "
            f"Received: approximate={approximate!r}"
        )
    return ops.nn.gelu(_float_input(x), approximate=approximate)


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: split `axis` in halves ``a, b`` and return ``a * sigmoid(b)``.

    Raises:
        ValueError: the size of `axis` is odd.

    Example:
        >>> lamina.activations.glu([[1.0, 0.0]])  # [[0.5]]
    """
    checked = _axis("glu", axis)
    if not isinstance(checked, int):
        raise TypeError(f"`glu`: argument `axis` must be an int. Received: axis={axis!r}")
    x = _float_input(x)
    size = x.shape[checked]
    if size is not None and size % 2:
        raise ValueError(
            f"`glu`: the size of `axis` must be even. Received: shape={x.shape}, axis={axis}"
        )
    return ops.nn.glu(x, axis=checked)


def sigmoid(x: Any) -> Any:
    """Logistic sigmoid ``1 / (1 + exp(-x))``.

    Example:
        >>> lamina.activations.sigmoid([0.0])  # [0.5]
    """
    return ops.nn.sigmoid(_float_input(x))


def hard_sigmoid(x: Any) -> Any:
    """Piecewise-linear sigmoid: ``relu6(x + 3) / 6``.

    Example:
        >>> lamina.activations.hard_sigmoid([0.0, 4.0])  # [0.5, 1.]
    """
    return ops.nn.hard_sigmoid(_float_input(x))


def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``.

    Example:
        >>> lamina.activations.log_sigmoid([0.0])  # [-0.693]
    """
    return ops.nn.log_sigmoid(_float_input(x))


def sparse_sigmoid(x: Any) -> Any:
    """Sparse sigmoid: 0 below -1, 1 above 1, ``(x + 1) / 2`` between.

    Example:
        >>> lamina.activations.sparse_sigmoid([-2.0, 0.0, 2.0])  # [0., 0.5, 1.]
    """
    return ops.nn.sparse_sigmoid(_float_input(x))


def silu(x: Any) -> Any:
    """SiLU (swish): ``x * sigmoid(x)``.

    Example:
        >>> lamina.activations.silu([1.0])  # [0.7311]
    """
    return ops.nn.silu(_float_input(x))


swish = silu


def hard_silu(x: Any) -> Any:
    """Hard SiLU (hard swish): ``x * relu6(x + 3) / 6``.

    Example:
        >>> lamina.activations.hard_silu([1.0])  # [0.6667]
    """
    return ops.nn.hard_silu(_float_input(x))


hard_swish = hard_silu


def mish(x: Any) -> Any:
    """Mish: ``x * tanh(softplus(x))``.

    Example:
        >>> lamina.activations.mish([1.0])  # [0.8651]
    """
    x = _float_input(x)
    return ops.multiply(x, ops.tanh(ops.nn.softplus(x)))


def softplus(x: Any) -> Any:
    """Softplus ``log(1 + exp(x))``.

    Example:
        >>> lamina.activations.softplus([0.0])  # [0.693]
    """
    return ops.nn.softplus(_float_input(x))


def softsign(x: Any) -> Any:
    """Softsign ``x / (1 + |x|)``.

    Example:
        >>> lamina.activations.softsign([1.0])  # [0.5]
    """
    return ops.nn.softsign(_float_input(x))


def sparse_plus(x: Any) -> Any:
    """Sparse plus: 0 below -1, x above 1, ``(x + 1)**2 / 4`` between.

    Example:
        >>> lamina.activations.sparse_plus([0.0])  # [0.25]
    """
    return ops.nn.sparse_plus(_float_input(x))


def squareplus(x: Any, b: float = 4) -> Any:
    """Squareplus ``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU (b >= 0).

    Example:
        >>> lamina.activations.squareplus([0.0])  # [1.]
    """
    return ops.nn.squareplus(_float_input(x), b=_number("squareplus", "b", b, minimum=0.0))


def tanh(x: Any) -> Any:
    """Hyperbolic tangent.

    Example:
        >>> lamina.activations.tanh([0.0])  # [0.]
    """
    return ops.tanh(_float_input(x))


def tanh_shrink(x: Any) -> Any:
    """``x - tanh(x)``.

    Example:
        >>> lamina.activations.tanh_shrink([1.0])  # [0.2384]
    """
    return ops.nn.tanh_shrink(_float_input(x))


def hard_tanh(x: Any) -> Any:
    """``clip(x, -1, 1)``.

    Example:
        >>> lamina.activations.hard_tanh([-2.0, 0.5])  # [-1., 0.5]
    """
    return ops.nn.hard_tanh(_float_input(x))


def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Shrink toward zero by `threshold` (>= 0); values within it become 0.

    Example:
        >>> lamina.activations.soft_shrink([1.0, 0.2])  # [0.5, 0.]
    """
    value = _number("soft_shrink", "threshold", threshold, minimum=0.0)
    return ops.nn.soft_shrink(_float_input(x), threshold=value)


def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    """Zero the values within `threshold` (>= 0) of zero, keep the others.

    Example:
        >>> lamina.activations.hard_shrink([1.0, 0.2])  # [1., 0.]
    """
    value = _number("hard_shrink", "threshold", threshold, minimum=0.0)
    return ops.nn.hard_shrink(_float_input(x), threshold=value)


def threshold(x: Any, threshold: float, default_value: float) -> Any:
    """``x`` where ``x > threshold``, `default_value` elsewhere.

    Example:
        >>> lamina.activations.threshold([0.1, 2.0], 1.0, -5.0)  # [-5., 2.]
    """
    limit = _number("threshold", "threshold", threshold)
    default = _number("threshold", "default_value", default_value)
    return ops.nn.threshold(_float_input(x), limit, default)


def sparsemax(x: Any, axis: int = -1) -> Any:
    """Sparsemax: the Euclidean projection of `x` onto the probability simplex along `axis`.

    Example:
        >>> lamina.activations.sparsemax([[2.0, 0.0]])  # [[1., 0.]]
    """
    checked = _axis("sparsemax", axis)
    if not isinstance(checked, int):
        raise TypeError(f"`sparsemax`: argument `axis` must be an int. Received: axis={axis!r}")
    return ops.nn.sparsemax(_float_input(x), axis=checked)


def exponential(x: Any) -> Any:
    """``exp(x)``.

    Example:
        >>> lamina.activations.exponential([0.0])  # [1.]
    """
    return ops.exp(_float_input(x))


def linear(x: Any) -> Any:
    """The identity: returns `x` unchanged (the "no activation" activation).

    Example:
        >>> lamina.activations.linear(3.0)  # 3.0
    """
    return x
