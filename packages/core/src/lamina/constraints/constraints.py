"""Weight constraints: projections applied to a variable after each optimizer update.

A constraint is a callable ``c(weight) -> projected weight`` with a config; norms are taken
along `axis` (for a Dense kernel ``(in, out)``, ``axis=0`` constrains each unit's incoming
weights).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from lamina import ops
from lamina.variables.variable import Variable


def _tensor(w: Any) -> Any:
    """`w` as a backend tensor (a `lamina.Variable` gives its current value)."""
    if isinstance(w, Variable):
        w = w.value
    return w if ops.is_tensor(w) else ops.convert_to_tensor(w)


def _epsilon() -> float:
    from lamina.config import epsilon

    return float(epsilon())


def _bound(where: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{where}`: argument `{name}` must be a non-negative number. "
            f"Received: {name}={value!r}"
        )
    number = float(value)
    if math.isnan(number) or number < 0:
        raise ValueError(
            f"`{where}`: argument `{name}` must be a non-negative number. "
            f"Received: {name}={value!r}"
        )
    return number


def _axis(where: str, axis: Any) -> int | tuple[int, ...]:
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        return int(axis)
    if isinstance(axis, (list, tuple)) and all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axis
    ):
        return tuple(int(a) for a in axis)
    raise TypeError(
        f"`{where}`: argument `axis` must be an int or a list of ints. Received: axis={axis!r}"
    )


def _norms(w: Any, axis: int | tuple[int, ...]) -> Any:
    return ops.sqrt(ops.sum(ops.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class of constraints: a callable ``(weight) -> projected weight``.

    The base constraint returns the weight unchanged; subclasses override `__call__` and,
    when they take arguments, `get_config`.

    Example:
        >>> class Clip(lamina.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return lamina.ops.clip(w, -1.0, 1.0)
    """

    def __call__(self, w: Any) -> Any:
        """The constrained weight (the identity for the base class).

        Args:
            w: the weight (a tensor or a variable).

        Returns:
            A tensor of `w`'s shape and dtype.
        """
        return _tensor(w)

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this constraint."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        """Rebuild a constraint from the output of `get_config`."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """Rescale slices whose L2 norm along `axis` exceeds `max_value` down to it.

    Args:
        max_value: the largest norm allowed (>= 0).
        axis: the axis (or axes) the norm is taken over.

    Example:
        >>> lamina.layers.Dense(4, kernel_constraint=lamina.constraints.MaxNorm(2.0))
    """

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value = _bound("MaxNorm", "max_value", max_value)
        self.axis = _axis("MaxNorm", axis)

    def __call__(self, w: Any) -> Any:
        """`w` with every slice's norm clipped to `max_value`."""
        w = _tensor(w)
        dtype = ops.dtype(w)
        norms = _norms(w, self.axis)
        desired = ops.clip(norms, 0.0, self.max_value)
        scale = ops.divide(desired, ops.add(norms, ops.cast(_epsilon(), dtype)))
        return ops.cast(ops.multiply(w, scale), dtype)

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": _config_axis(self.axis)}


class MinMaxNorm(Constraint):
    """Move slice norms along `axis` toward ``[min_value, max_value]`` at `rate`.

    The new norm is ``rate * clip(norm, min_value, max_value) + (1 - rate) * norm``; rate 1
    projects exactly, smaller rates move part of the way per update.

    Args:
        min_value: the smallest norm (>= 0).
        max_value: the largest norm (>= min_value).
        rate: the fraction of the projection applied, in ``[0, 1]``.
        axis: the axis (or axes) the norm is taken over.

    Example:
        >>> c = lamina.constraints.MinMaxNorm(min_value=0.5, max_value=1.0, rate=0.5)
    """

    def __init__(
        self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0
    ) -> None:
        self.min_value = _bound("MinMaxNorm", "min_value", min_value)
        self.max_value = _bound("MinMaxNorm", "max_value", max_value)
        if self.max_value < self.min_value:
            raise ValueError(
                "`MinMaxNorm`: argument `max_value` must be >= `min_value`. "
                f"Received: min_value={min_value!r}, max_value={max_value!r}"
            )
        self.rate = _bound("MinMaxNorm", "rate", rate)
        if self.rate > 1.0:
            raise ValueError(
                f"`MinMaxNorm`: argument `rate` must be in [0, 1]. Received: rate={rate!r}"
            )
        self.axis = _axis("MinMaxNorm", axis)

    def __call__(self, w: Any) -> Any:
        """`w` with every slice's norm moved toward the allowed range."""
        w = _tensor(w)
        dtype = ops.dtype(w)
        norms = _norms(w, self.axis)
        clipped = ops.clip(norms, self.min_value, self.max_value)
        desired = ops.add(
            ops.multiply(ops.cast(self.rate, dtype), clipped),
            ops.multiply(ops.cast(1.0 - self.rate, dtype), norms),
        )
        scale = ops.divide(desired, ops.add(norms, ops.cast(_epsilon(), dtype)))
        return ops.cast(ops.multiply(w, scale), dtype)

    def get_config(self) -> dict[str, Any]:
        return {
            "min_value": self.min_value,
            "max_value": self.max_value,
            "rate": self.rate,
            "axis": _config_axis(self.axis),
        }


class NonNeg(Constraint):
    """Set negative weights to zero.

    Example:
        >>> lamina.layers.Dense(4, kernel_constraint=lamina.constraints.NonNeg())
    """

    def __call__(self, w: Any) -> Any:
        """`w` with negative entries zeroed."""
        w = _tensor(w)
        return ops.multiply(w, ops.cast(ops.greater_equal(w, 0), ops.dtype(w)))


class UnitNorm(Constraint):
    """Rescale every slice along `axis` to unit L2 norm.

    Args:
        axis: the axis (or axes) the norm is taken over.

    Example:
        >>> lamina.layers.Dense(4, kernel_constraint=lamina.constraints.UnitNorm(axis=0))
    """

    def __init__(self, axis: Any = 0) -> None:
        self.axis = _axis("UnitNorm", axis)

    def __call__(self, w: Any) -> Any:
        """`w` with every slice divided by its norm."""
        w = _tensor(w)
        dtype = ops.dtype(w)
        denominator = ops.add(_norms(w, self.axis), ops.cast(_epsilon(), dtype))
        return ops.cast(ops.divide(w, denominator), dtype)

    def get_config(self) -> dict[str, Any]:
        return {"axis": _config_axis(self.axis)}


def _config_axis(axis: int | tuple[int, ...]) -> int | list[int]:
    return axis if isinstance(axis, int) else list(axis)
