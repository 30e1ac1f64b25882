"""Pooling: max_pool, average_pool and their adaptive (output-size driven) forms."""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, native, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.nn.conv._args import (
    Pads,
    check_input_rank,
    data_format_arg,
    int_tuple,
    join_shape,
    padding_arg,
    split_shape,
    window_length,
    window_pads,
)
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["adaptive_average_pool", "adaptive_max_pool", "average_pool", "max_pool"]


def _pool_dtype(op: str, x: Any) -> str:
    """Pooling runs in float: ints and bools become floatx."""
    dtype = dtypes.dtype_of(x)
    if dtype in dtypes.FLOATS:
        return dtype
    if dtype in dtypes.COMPLEXES or dtype == "string":
        raise TypeError(f"`{op}`: expected a real tensor. Received dtype {dtype}")
    return dtypes.result_type(dtype, float)


class _Pool(Op):
    def __init__(
        self,
        pool_size: Any,
        strides: Any = None,
        padding: str = "valid",
        data_format: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.pool_size = pool_size
        self.strides = strides
        self.padding = padding_arg(self.op_name, padding)
        self.data_format = data_format_arg(self.op_name, data_format)

    def _plan(self, x: Shape) -> tuple[Shape, tuple[int, ...], tuple[int, ...], Pads | None]:
        check_input_rank(self.op_name, x, (3, 4, 5))
        n = len(x) - 2
        window = int_tuple(self.op_name, "pool_size", self.pool_size, n)
        strides = window
        if self.strides is not None:
            strides = int_tuple(self.op_name, "strides", self.strides, n)
        batch, c, spatial = split_shape(x, self.data_format)
        ones = (1,) * n
        out = tuple(
            window_length(self.op_name, size, w, s, 1, self.padding)
            for size, w, s in zip(spatial, window, strides)
        )
        pads = None
        if self.padding == "valid" or all(d is not None for d in spatial):
            pads = window_pads(spatial, window, strides, ones, self.padding, self.op_name)
        return join_shape(batch, c, out, self.data_format), window, strides, pads

    def compute_output_spec(self, inputs: Any) -> SymbolicTensor:
        shape = self._plan(static_shape(inputs))[0]
        return SymbolicTensor(shape, _pool_dtype(self.op_name, inputs))

    def call(self, inputs: Any) -> Any:
        window, strides, pads, dtype, ready = memo(self, (inputs,), lambda: self._checked(inputs))
        x = inputs if ready else to_tensor(inputs, dtype)
        return self.compute(x, window, strides, pads)

    def _checked(self, inputs: Any) -> tuple[tuple[int, ...], tuple[int, ...], Pads, str, bool]:
        """What an eager call needs: window, strides, pads, the dtype to pool in and whether
        `inputs` already is a tensor of it."""
        _, window, strides, pads = self._plan(static_shape(inputs))
        if pads is None:
            raise ValueError(f"`{self.op_name}`: spatial dims must be known when run eagerly.")
        dtype = _pool_dtype(self.op_name, inputs)
        return window, strides, pads, dtype, native(dtype, inputs)

    def compute(self, x: Any, window: tuple[int, ...], strides: tuple[int, ...], pads: Pads) -> Any:
        raise NotImplementedError


class MaxPool(_Pool):
    def compute(self, x: Any, window: tuple[int, ...], strides: tuple[int, ...], pads: Pads) -> Any:
        return backend().nn.max_pool(x, window, strides, pads, self.data_format)


class AveragePool(_Pool):
    def compute(self, x: Any, window: tuple[int, ...], strides: tuple[int, ...], pads: Pads) -> Any:
        return backend().nn.average_pool(x, window, strides, pads, self.data_format)


class _AdaptivePool(Op):
    def __init__(
        self, output_size: Any, data_format: str | None = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.output_size = output_size
        self.data_format = data_format_arg(self.op_name, data_format)

    def _plan(self, x: Shape) -> tuple[Shape, tuple[int, ...]]:
        check_input_rank(self.op_name, x, (3, 4, 5))
        size = int_tuple(self.op_name, "output_size", self.output_size, len(x) - 2)
        batch, c, _ = split_shape(x, self.data_format)
        return join_shape(batch, c, size, self.data_format), size

    def compute_output_spec(self, inputs: Any) -> SymbolicTensor:
        shape = self._plan(static_shape(inputs))[0]
        return SymbolicTensor(shape, _pool_dtype(self.op_name, inputs))

    def call(self, inputs: Any) -> Any:
        _, size = self._plan(static_shape(inputs))
        spatial = split_shape(static_shape(inputs), self.data_format)[2]
        if any(d is None for d in spatial):
            raise ValueError(f"`{self.op_name}`: spatial dims must be known when run eagerly.")
        x = to_tensor(inputs, _pool_dtype(self.op_name, inputs))
        return self.compute(x, size)

    def compute(self, x: Any, size: tuple[int, ...]) -> Any:
        raise NotImplementedError


class AdaptiveAveragePool(_AdaptivePool):
    def compute(self, x: Any, size: tuple[int, ...]) -> Any:
        return composite("nn", "adaptive_average_pool")(x, size, self.data_format)


class AdaptiveMaxPool(_AdaptivePool):
    def compute(self, x: Any, size: tuple[int, ...]) -> Any:
        return composite("nn", "adaptive_max_pool")(x, size, self.data_format)


def max_pool(
    inputs: Any,
    pool_size: Any,
    strides: Any = None,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Max over sliding windows (1D, 2D or 3D); integer inputs are pooled as floatx.

    Args:
        inputs: rank 3-5 tensor.
        pool_size: int or tuple, the window size.
        strides: int, tuple or None (None: `pool_size`).
        padding: ``"valid"`` or ``"same"`` (padded cells never win).
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).

    Example:
        >>> lamina.ops.max_pool(np.ones((1, 4, 4, 3)), 2).shape  # (1, 2, 2, 3)
    """
    return MaxPool(pool_size, strides, padding, data_format)(inputs)


def average_pool(
    inputs: Any,
    pool_size: Any,
    strides: Any = None,
    padding: str = "valid",
    data_format: str | None = None,
) -> Any:
    """Mean over sliding windows; with ``"same"`` padding, padded cells are not counted.

    Example:
        >>> lamina.ops.average_pool(np.ones((1, 4, 4, 3)), 2).shape  # (1, 2, 2, 3)
    """
    return AveragePool(pool_size, strides, padding, data_format)(inputs)


def adaptive_average_pool(inputs: Any, output_size: Any, data_format: str | None = None) -> Any:
    """Mean pooling to a fixed `output_size`; bin ``i`` covers ``[i*n//o, ceil((i+1)*n/o))``.

    Example:
        >>> lamina.ops.adaptive_average_pool(np.ones((1, 7, 7, 3)), 2).shape  # (1, 2, 2, 3)
    """
    return AdaptiveAveragePool(output_size, data_format)(inputs)


def adaptive_max_pool(inputs: Any, output_size: Any, data_format: str | None = None) -> Any:
    """Max pooling to a fixed `output_size` (PyTorch's bins).

    Example:
        >>> lamina.ops.adaptive_max_pool(np.ones((1, 7, 7, 3)), 2).shape  # (1, 2, 2, 3)
    """
    return AdaptiveMaxPool(output_size, data_format)(inputs)
