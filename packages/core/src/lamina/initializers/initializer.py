"""The `Initializer` base class and the argument checks its subclasses share.

An initializer is a config-carrying callable ``init(shape, dtype=None)`` that returns a
backend tensor; `Layer.add_weight` and `lamina.Variable` call it to make initial values.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

from lamina import ops
from lamina.ops import dtypes


class Initializer:
    """Base class of every initializer: a callable ``(shape, dtype=None) -> tensor``.

    Subclasses implement `__call__` and, when they take arguments, `get_config`, so that
    `lamina.initializers.serialize`/`deserialize` can rebuild them.

    Example:
        >>> class Halves(lamina.initializers.Initializer):
        ...     def __call__(self, shape, dtype=None):
        ...         return lamina.ops.full(shape, 0.5, dtype=dtype)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """The base initializer gives zeros; subclasses override this.

        Args:
            shape: the shape of the tensor to make.
            dtype: its dtype (default: `lamina.config.floatx()`).

        Returns:
            A tensor of `shape` and `dtype`.
        """
        return ops.zeros(check_shape(type(self).__name__, shape), dtype=resolve_dtype(dtype))

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments (JSON-able) that rebuild this initializer."""
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        """Rebuild an initializer from the output of `get_config`."""
        return cls(**config)

    def clone(self) -> Initializer:
        """A new initializer with the same config (seeded clones give the same values)."""
        return type(self).from_config(self.get_config())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def resolve_dtype(dtype: Any) -> str:
    """`dtype` as a canonical name; None gives `floatx()`."""
    return dtypes.standardize_dtype(dtype)


def check_float_dtype(where: str, dtype: Any) -> str:
    """`dtype` as a canonical float name.

    Raises:
        TypeError: `dtype` is not a floating-point dtype.
    """
    name = resolve_dtype(dtype)
    if name not in dtypes.FLOATS:
        raise TypeError(
            f"`{where}`: argument `dtype` must be a float dtype {dtypes.FLOATS}. "
            f"Received: dtype={dtype!r}"
        )
    return name


def check_shape(where: str, shape: Any) -> tuple[int, ...]:
    """`shape` as a tuple of non-negative ints.

    Raises:
        ValueError: `shape` is not a sequence of non-negative ints.
    """
    dims = (shape,) if isinstance(shape, numbers.Integral) else shape
    try:
        out = tuple(dims)
    except TypeError:
        out = None
    if out is None or not all(
        isinstance(d, numbers.Integral) and not isinstance(d, bool) and operator.index(d) >= 0
        for d in out
    ):
        raise ValueError(
            f"`{where}`: argument `shape` must be a tuple of non-negative ints. "
            f"Received: shape={shape!r}"
        )
    return tuple(operator.index(d) for d in out)


def check_number(where: str, name: str, value: Any, minimum: float | None = None,
                 strict: bool = False) -> float:
    """`value` as a finite float, optionally bounded below.

    Raises:
        TypeError: `value` is not a real number.
        ValueError: `value` is not finite or is below `minimum`.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"`{where}`: argument `{name}` must be a number. Received: {name}={value!r}"
        )
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(
            f"`{where}`: argument `{name}` must be finite. Received: {name}={value!r}"
        )
    if minimum is not None and (number <= minimum if strict else number < minimum):
        bound = f"> {minimum}" if strict else f">= {minimum}"
        raise ValueError(
            f"`{where}`: argument `{name}` must be {bound}. Received: {name}={value!r}"
        )
    return number


def compute_fans(shape: tuple[int, ...]) -> tuple[float, float]:
    """The fan-in and fan-out of a weight of `shape`.

    Dense kernels are ``(in, out)``; convolution kernels ``(*spatial, in, out)`` multiply both
    fans by the receptive field size. Scalars count as 1, vectors as their length.

    Returns:
        ``(fan_in, fan_out)`` as floats.
    """
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)
