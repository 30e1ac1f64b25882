"""Array creation: ranges, constants, windows, grids."""

from __future__ import annotations

from typing import Any, Protocol

from ._types import DType, Tensor


class NumpyCreationOps(Protocol):
    """Array creation: ranges, constants, grids.

    Shapes arrive as tuples of ints, dtypes as standardized names; `fill_value`, `start`
    and `stop` arrive as tensors already of the output (or computation) dtype.

    Composites the core writes once on these primitives (`lamina.ops.composites.numpy`):
    `eye`, `logspace`, `meshgrid`, `ones`, `tri`, `zeros`. A backend may still define one,
    with the same signature, where a native kernel is faster; the core then calls it.
    """

    def full(self, shape: tuple[int, ...], fill_value: Tensor, dtype: DType) -> Tensor: ...

    def full_like(self, x: Tensor, fill_value: Tensor, dtype: DType) -> Tensor:
        """`fill_value` broadcast to the (possibly dynamic) shape of `x`."""
        ...

    def copy(self, x: Tensor) -> Tensor: ...

    def arange(self, start: Any, stop: Any, step: Any, dtype: DType) -> Tensor:
        """`start`, `stop`, `step`: Python numbers or scalar tensors; step is non-zero."""
        ...

    def linspace(
        self, start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
    ) -> tuple[Tensor, Tensor]:
        """The samples and the step (NaN where undefined), in the float dtype of start/stop.

        `axis` is canonical in ``[0, ndim]`` of the broadcast of `start` and `stop`.
        """
        ...

    def geomspace(
        self, start: Tensor, stop: Tensor, num: int, endpoint: bool, axis: int
    ) -> Tensor: ...
