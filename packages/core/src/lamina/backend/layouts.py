"""`InLayout`: window kernels written for one data layout, run under either `data_format`.

A library whose convolution and pooling kernels take one layout (TensorFlow's CPU kernels
channels_last, torch's channels_first, a NumPy sliding-window kernel either) moves the
channel axis around them. The protocol's `conv`, `conv_transpose`, `max_pool` and
`average_pool` take `data_format`; `InLayout` makes such a member from a kernel that takes
its inputs in the library's layout and no `data_format`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from lamina.backend.protocols._types import Tensor
from lamina.backend.windows import Ints, Pads

ConvKernel = Callable[[Tensor, Tensor, Ints, Pads, Ints], Tensor]
"""``(inputs, kernel, strides, padding, dilation_rate)``, inputs in the kernel's layout."""
Conv = Callable[[Tensor, Tensor, Ints, Pads, str, Ints], Tensor]
"""The protocol's ``conv(inputs, kernel, strides, padding, data_format, dilation_rate)``."""
PoolKernel = Callable[[Tensor, Ints, Ints, Pads], Tensor]
"""``(inputs, pool_size, strides, padding)``, inputs in the kernel's layout."""
Pool = Callable[[Tensor, Ints, Ints, Pads, str], Tensor]
"""The protocol's ``max_pool``/``average_pool(inputs, pool_size, strides, padding,
data_format)``."""


@dataclasses.dataclass(frozen=True)
class InLayout:
    """Kernels taking `layout` ("channels_last" or "channels_first") as protocol members.

    `moveaxis(x, source, destination)` is the library's own (``np.moveaxis``,
    ``torch.movedim``...).

    Example:
        >>> import numpy as np
        >>> from lamina.backend.kit import InLayout
        >>> last = InLayout("channels_last", np.moveaxis)
        >>> pool = last.pool(lambda x, size, strides, pads: x[:, :: strides[0]])
        >>> pool(np.zeros((1, 3, 4)), (1,), (2,), ((0, 0),), "channels_first").shape
        (1, 3, 2)
    """

    layout: str
    moveaxis: Callable[[Tensor, int, int], Tensor]

    def to(self, x: Tensor, data_format: str) -> Tensor:
        """`x` given in `data_format`, in the kernel's layout."""
        if data_format == self.layout:
            return x
        return (
            self.moveaxis(x, 1, -1) if data_format == "channels_first" else self.moveaxis(x, -1, 1)
        )

    def back(self, x: Tensor, data_format: str) -> Tensor:
        """`x` in the kernel's layout, back in `data_format`."""
        if data_format == self.layout:
            return x
        return (
            self.moveaxis(x, -1, 1) if data_format == "channels_first" else self.moveaxis(x, 1, -1)
        )

    def conv(self, kernel: ConvKernel) -> Conv:
        """A `conv` (or `conv_transpose`) member running `kernel` in this layout."""

        def member(
            inputs: Tensor, w: Tensor, strides: Ints, pads: Pads, fmt: str, dilation: Ints, /
        ) -> Tensor:
            return self.back(kernel(self.to(inputs, fmt), w, strides, pads, dilation), fmt)

        return member

    def pool(self, kernel: PoolKernel) -> Pool:
        """A `max_pool` or `average_pool` member running `kernel` in this layout."""

        def member(inputs: Tensor, size: Ints, strides: Ints, pads: Pads, fmt: str, /) -> Tensor:
            return self.back(kernel(self.to(inputs, fmt), size, strides, pads), fmt)

        return member
