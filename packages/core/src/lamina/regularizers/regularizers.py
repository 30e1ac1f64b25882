"""Weight regularizers: penalties on a weight added to a layer's losses.

A regularizer is a callable ``reg(weight) -> scalar`` with a config; `Layer.add_weight`
stores it on the variable and the layer adds its value to ``layer.losses``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from lamina import ops
from lamina.variables.variable import Variable

_EPSILON = 1e-12


def _factor(where: str, name: str, value: Any) -> float:
    """`value` as a finite, non-negative float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{where}`: argument `{name}` must be a non-negative float. "
            f"Received: {name}={value!r}"
        )
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(
            f"`{where}`: argument `{name}` must be a finite, non-negative float. "
            f"Received: {name}={value!r}"
        )
    return number


def _tensor(x: Any) -> Any:
    """`x` as a backend tensor (a `lamina.Variable` gives its current value)."""
    if isinstance(x, Variable):
        x = x.value
    return x if ops.is_tensor(x) else ops.convert_to_tensor(x)


class Regularizer:
    """Base class of regularizers: a callable ``(weight) -> scalar penalty``.

    The base penalty is 0; subclasses override `__call__` and, when they take arguments,
    `get_config`.

    Example:
        >>> class L3(lamina.regularizers.Regularizer):
        ...     def __call__(self, x):
        ...         return 1e-3 * lamina.ops.sum(lamina.ops.abs(x) ** 3)
    """

    def __call__(self, x: Any) -> Any:
        """The penalty on weight `x` (0 for the base class).

        Args:
            x: the weight (a tensor or a variable).

        Returns:
            A scalar tensor.
        """
        x = _tensor(x)
        return ops.zeros((), dtype=ops.dtype(x))

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this regularizer."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        """Rebuild a regularizer from the output of `get_config`."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class L1(Regularizer):
    """``l1 * sum(|x|)``.

    Args:
        l1: the factor (>= 0; None means 0.01).

    Example:
        >>> lamina.layers.Dense(4, kernel_regularizer=lamina.regularizers.L1(1e-4))
    """

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _factor("L1", "l1", 0.01 if l1 is None else l1)

    def __call__(self, x: Any) -> Any:
        """The L1 penalty on `x`."""
        x = _tensor(x)
        return ops.multiply(ops.cast(self.l1, ops.dtype(x)), ops.sum(ops.abs(x)))

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * sum(x ** 2)``.

    Args:
        l2: the factor (>= 0; None means 0.01).

    Example:
        >>> lamina.layers.Dense(4, kernel_regularizer=lamina.regularizers.L2(1e-4))
    """

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _factor("L2", "l2", 0.01 if l2 is None else l2)

    def __call__(self, x: Any) -> Any:
        """The L2 penalty on `x`."""
        x = _tensor(x)
        return ops.multiply(ops.cast(self.l2, ops.dtype(x)), ops.sum(ops.square(x)))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``.

    Args:
        l1: the L1 factor (>= 0; None means 0).
        l2: the L2 factor (>= 0; None means 0).

    Example:
        >>> reg = lamina.regularizers.L1L2(l1=1e-5, l2=1e-4)
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _factor("L1L2", "l1", 0.0 if l1 is None else l1)
        self.l2 = _factor("L1L2", "l2", 0.0 if l2 is None else l2)

    def __call__(self, x: Any) -> Any:
        """The combined penalty on `x`."""
        x = _tensor(x)
        dtype = ops.dtype(x)
        total = ops.zeros((), dtype=dtype)
        if self.l1:
            total = ops.add(total, ops.multiply(ops.cast(self.l1, dtype), ops.sum(ops.abs(x))))
        if self.l2:
            total = ops.add(
                total, ops.multiply(ops.cast(self.l2, dtype), ops.sum(ops.square(x)))
            )
        return total

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Push the rows (or columns) of a 2D weight toward orthogonality.

    The penalty is ``factor`` times the mean absolute cosine similarity over pairs of
    distinct rows (``mode="rows"``) or columns (``mode="columns"``); 0 with fewer than two.

    Args:
        factor: the multiplier (>= 0).
        mode: ``"rows"`` or ``"columns"``.

    Example:
        >>> reg = lamina.regularizers.OrthogonalRegularizer(factor=0.01, mode="columns")
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _factor("OrthogonalRegularizer", "factor", factor)
        if mode not in ("rows", "columns"):
            raise ValueError(
                "`OrthogonalRegularizer`: argument `mode` must be 'rows' or 'columns'. "
                f"Received: mode={mode!r}"
            )
        self.mode = mode

    def __call__(self, x: Any) -> Any:
        """The orthogonality penalty on the 2D weight `x`.

        Raises:
            ValueError: `x` is not 2D.
        """
        x = _tensor(x)
        if len(x.shape) != 2:
            raise ValueError(
                "`OrthogonalRegularizer`: the weight must be 2D. "
                f"Received: a weight of shape {tuple(x.shape)}"
            )
        vectors = x if self.mode == "rows" else ops.transpose(x)
        size = int(vectors.shape[0])
        dtype = ops.dtype(x)
        if size < 2:
            return ops.zeros((), dtype=dtype)
        norms = ops.sqrt(
            ops.maximum(ops.sum(ops.square(vectors), axis=1, keepdims=True), _EPSILON)
        )
        unit = ops.divide(vectors, norms)
        gram = ops.matmul(unit, ops.transpose(unit))
        off_diagonal = ops.multiply(gram, ops.subtract(1.0, ops.eye(size, dtype=dtype)))
        pairs = size * (size - 1) / 2.0
        scale = ops.cast(self.factor * 0.5 / pairs, dtype)
        return ops.multiply(scale, ops.sum(ops.abs(off_diagonal)))

    def get_config(self) -> dict[str, Any]:
        return {"factor": self.factor, "mode": self.mode}
