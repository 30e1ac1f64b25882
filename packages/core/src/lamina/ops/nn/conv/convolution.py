"""Convolutions: conv, depthwise_conv, separable_conv and conv_transpose (1D, 2D, 3D)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, promote
from lamina.ops.eager_memo import memo
from lamina.ops.nn.conv._args import (
    Pads,
    check_input_rank,
    data_format_arg,
    float_result,
    int_tuple,
    join_shape,
    padding_arg,
    split_shape,
    window_length,
    window_pads,
)
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["conv", "conv_transpose", "depthwise_conv", "separable_conv"]


class _ConvBase(Op):
    """The arguments every convolution shares, normalized once the rank is known."""

    def __init__(
        self,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.strides = strides
        self.padding = padding_arg(self.op_name, padding)
        self.data_format = data_format_arg(self.op_name, data_format)
        self.dilation_rate = dilation_rate

    def _windows(self, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        strides = int_tuple(self.op_name, "strides", self.strides, n)
        dilation = int_tuple(self.op_name, "dilation_rate", self.dilation_rate, n)
        if any(s > 1 for s in strides) and any(d > 1 for d in dilation):
            raise ValueError(
                f"`{self.op_name}`: `strides` > 1 cannot be combined with `dilation_rate` > 1. "
                f"Received: strides={self.strides!r}, dilation_rate={self.dilation_rate!r}"
            )
        return strides, dilation

    def _kernel_rank(self, x: Shape, k: Shape, arg: str = "kernel") -> None:
        check_input_rank(self.op_name, x, (3, 4, 5))
        if len(k) != len(x):
            raise ValueError(
                f"`{self.op_name}`: argument `{arg}` must have the rank of `inputs` "
                f"({len(x)}): spatial dims, then two channel dims. "
                f"Received: inputs.shape={x}, {arg}.shape={k}"
            )

    def _out(self, x: Shape, window: Shape, channels: int | None) -> tuple[Shape, Pads | None]:
        n = len(x) - 2
        strides, dilation = self._windows(n)
        batch, _, spatial = split_shape(x, self.data_format)
        sizes = tuple(int(w) for w in window if w is not None)
        if len(sizes) != n:
            raise ValueError(f"`{self.op_name}`: the kernel's spatial dims must be known.")
        out = tuple(
            window_length(self.op_name, size, w, s, d, self.padding)
            for size, w, s, d in zip(spatial, sizes, strides, dilation)
        )
        pads = None
        if all(d is not None for d in spatial) or self.padding == "valid":
            pads = window_pads(spatial, sizes, strides, dilation, self.padding, self.op_name)
        return join_shape(batch, channels, out, self.data_format), pads

    def _eager_plan(
        self, plan: Callable[..., tuple[Shape, Pads | None]], *xs: Any
    ) -> tuple[Pads, tuple[int, ...], tuple[int, ...], str]:
        """Pads, strides, dilation and dtype of an eager call, checked once per input
        signature (`eager_memo`)."""

        def check() -> tuple[Pads, tuple[int, ...], tuple[int, ...], str]:
            pads = self._eager_pads(plan(*(static_shape(x) for x in xs))[1])
            strides, dilation = self._windows(len(pads))
            return pads, strides, dilation, float_result(self.op_name, *xs)

        return memo(self, xs, check)

    def _eager_pads(self, pads: Pads | None) -> Pads:
        if pads is None:
            raise ValueError(
                f"`{self.op_name}`: padding='same' needs known spatial dims when run eagerly."
            )
        return pads

    def _depthwise_plan(self, x: Shape, k: Shape) -> tuple[Shape, Pads | None]:
        self._kernel_rank(x, k)
        c = split_shape(x, self.data_format)[1]
        if c is not None and k[-2] is not None and c != k[-2]:
            raise ValueError(
                f"`{self.op_name}`: the kernel's input channels ({k[-2]}) must equal the input "
                f"channels ({c}) (kernel layout is (*spatial, in, multiplier)). "
                f"Received: inputs.shape={x}, kernel.shape={k}"
            )
        c = c if c is not None else k[-2]
        out_c = None if c is None or k[-1] is None else c * k[-1]
        return self._out(x, k[:-2], out_c)


class Conv(_ConvBase):
    def _plan(self, x: Shape, k: Shape) -> tuple[Shape, Pads | None]:
        self._kernel_rank(x, k)
        c = split_shape(x, self.data_format)[1]
        kin = k[-2]
        if c is not None and kin is not None and (kin == 0 or c % kin):
            raise ValueError(
                f"`{self.op_name}`: the input channels ({c}) must be a multiple of the "
                f"kernel's input channels ({kin}) (kernel layout is (*spatial, in, out)). "
                f"Received: inputs.shape={x}, kernel.shape={k}"
            )
        return self._out(x, k[:-2], k[-1])

    def compute_output_spec(self, inputs: Any, kernel: Any) -> SymbolicTensor:
        shape, _ = self._plan(static_shape(inputs), static_shape(kernel))
        return SymbolicTensor(shape, float_result(self.op_name, inputs, kernel))

    def call(self, inputs: Any, kernel: Any) -> Any:
        pads, strides, dilation, dtype = self._eager_plan(self._plan, inputs, kernel)
        x, k = promote(self.op_name, inputs, kernel, dtype=dtype)
        return backend().nn.conv(x, k, strides, pads, self.data_format, dilation)


class DepthwiseConv(_ConvBase):
    def compute_output_spec(self, inputs: Any, kernel: Any) -> SymbolicTensor:
        shape, _ = self._depthwise_plan(static_shape(inputs), static_shape(kernel))
        return SymbolicTensor(shape, float_result(self.op_name, inputs, kernel))

    def call(self, inputs: Any, kernel: Any) -> Any:
        pads, strides, dilation, dtype = self._eager_plan(self._depthwise_plan, inputs, kernel)
        x, k = promote(self.op_name, inputs, kernel, dtype=dtype)
        return composite("nn", "depthwise_conv")(x, k, strides, pads, self.data_format, dilation)


class SeparableConv(_ConvBase):
    def _check(self, x: Shape, dk: Shape, pk: Shape) -> tuple[Shape, Pads | None]:
        shape, pads = self._depthwise_plan(x, dk)
        self._kernel_rank(x, pk, "pointwise_kernel")
        mid = split_shape(shape, self.data_format)[1]
        if any(d != 1 for d in pk[:-2]) or (mid is not None and pk[-2] not in (None, mid)):
            raise ValueError(
                f"`{self.op_name}`: `pointwise_kernel` must have shape (1, ..., 1, {mid}, out). "
                f"Received: pointwise_kernel.shape={pk}"
            )
        b, _, spatial = split_shape(shape, self.data_format)
        return join_shape(b, pk[-1], spatial, self.data_format), pads

    def compute_output_spec(self, inputs: Any, dk: Any, pk: Any) -> SymbolicTensor:
        shape, _ = self._check(static_shape(inputs), static_shape(dk), static_shape(pk))
        return SymbolicTensor(shape, float_result(self.op_name, inputs, dk, pk))

    def call(self, inputs: Any, dk: Any, pk: Any) -> Any:
        pads, strides, dilation, dtype = self._eager_plan(self._check, inputs, dk, pk)
        x, d, p = promote(self.op_name, inputs, dk, pk, dtype=dtype)
        nn = backend().nn
        y = composite("nn", "depthwise_conv")(x, d, strides, pads, self.data_format, dilation)
        ones = (1,) * len(pads)
        return nn.conv(y, p, ones, ((0, 0),) * len(pads), self.data_format, ones)


class ConvTranspose(_ConvBase):
    def __init__(
        self,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(strides, padding, data_format, dilation_rate, name)
        self.output_padding = output_padding

    def _plan(self, x: Shape, k: Shape) -> tuple[Shape, Pads | None]:
        self._kernel_rank(x, k)
        n = len(x) - 2
        strides, dilation = self._windows(n)
        batch, c, spatial = split_shape(x, self.data_format)
        if c is not None and k[-1] is not None and c != k[-1]:
            raise ValueError(
                f"`{self.op_name}`: the kernel's last dim ({k[-1]}) must equal the input "
                f"channels ({c}) (kernel layout is (*spatial, out, in)). "
                f"Received: inputs.shape={x}, kernel.shape={k}"
            )
        outpad: tuple[int | None, ...] = (None,) * n
        if self.output_padding is not None:
            outpad = int_tuple(self.op_name, "output_padding", self.output_padding, n, 0)
            if any(o >= s for o, s in zip(outpad, strides)):
                raise ValueError(
                    f"`{self.op_name}`: `output_padding` must be smaller than `strides`. "
                    f"Received: output_padding={self.output_padding!r}, strides={self.strides!r}"
                )
        out: list[int | None] = []
        pads: list[tuple[int, int]] | None = []
        for size, w, s, d, o in zip(spatial, k[:-2], strides, dilation, outpad):
            span = (int(w or 1) - 1) * d + 1
            if size is None:
                out.append(None)
                pads = None
                continue
            if o is None:
                length = size * s + (max(span - s, 0) if self.padding == "valid" else 0)
            else:
                pad = span // 2 if self.padding == "same" else 0
                length = (size - 1) * s + span - 2 * pad + o
            out.append(length)
            # The equivalent stride-1 conv over the input dilated by `s`, with the flipped
            # kernel, pads so that its forward conv (TF's rule) maps `length` back to `size`.
            fwd = 0 if self.padding == "valid" else max((size - 1) * s + span - length, 0) // 2
            left = span - 1 - fwd
            if pads is not None:
                pads.append((left, length - (size - 1) * s - 1 + span - 1 - left))
        shape = join_shape(batch, k[-2], tuple(out), self.data_format)
        return shape, None if pads is None else tuple(pads)

    def compute_output_spec(self, inputs: Any, kernel: Any) -> SymbolicTensor:
        shape, _ = self._plan(static_shape(inputs), static_shape(kernel))
        return SymbolicTensor(shape, float_result(self.op_name, inputs, kernel))

    def call(self, inputs: Any, kernel: Any) -> Any:
        pads, strides, dilation, dtype = self._eager_plan(self._plan, inputs, kernel)
        x, k = promote(self.op_name, inputs, kernel, dtype=dtype)
        return backend().nn.conv_transpose(x, k, strides, pads, self.data_format, dilation)


def conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """N-D convolution (1D, 2D or 3D), grouped when the kernel has fewer input channels.

    Args:
        inputs: rank 3-5 tensor, ``(batch, *spatial, channels)`` for channels_last.
        kernel: ``(*kernel_spatial, in_channels // groups, out_channels)``.
        strides: int or tuple, the step of the window along each spatial dim.
        padding: ``"valid"`` (none) or ``"same"`` (output length ``ceil(size / stride)``).
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).
        dilation_rate: int or tuple, spacing between kernel taps.

    Example:
        >>> lamina.ops.conv(np.ones((1, 5, 5, 3)), np.ones((3, 3, 3, 8))).shape  # (1, 3, 3, 8)
    """
    return Conv(strides, padding, data_format, dilation_rate)(inputs, kernel)


def depthwise_conv(
    inputs: Any,
    kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Depthwise convolution: each input channel gets its own ``multiplier`` filters.

    Args:
        inputs: rank 3-5 tensor.
        kernel: ``(*kernel_spatial, in_channels, multiplier)``; the output has
            ``in_channels * multiplier`` channels.

    Example:
        >>> lamina.ops.depthwise_conv(np.ones((1, 5, 5, 3)), np.ones((3, 3, 3, 2))).shape
    """
    return DepthwiseConv(strides, padding, data_format, dilation_rate)(inputs, kernel)


def separable_conv(
    inputs: Any,
    depthwise_kernel: Any,
    pointwise_kernel: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """A depthwise convolution followed by a pointwise (1x...x1) convolution.

    Args:
        depthwise_kernel: ``(*kernel_spatial, in_channels, multiplier)``.
        pointwise_kernel: ``(1, ..., 1, in_channels * multiplier, out_channels)``.

    Example:
        >>> x = np.ones((1, 5, 5, 3))
        >>> lamina.ops.separable_conv(x, np.ones((3, 3, 3, 2)), np.ones((1, 1, 6, 4))).shape
    """
    op = SeparableConv(strides, padding, data_format, dilation_rate)
    return op(inputs, depthwise_kernel, pointwise_kernel)


def conv_transpose(
    inputs: Any,
    kernel: Any,
    strides: Any,
    padding: str = "valid",
    output_padding: Any = None,
    data_format: str | None = None,
    dilation_rate: Any = 1,
) -> Any:
    """Transposed convolution (the gradient of `conv` with respect to its input).

    Args:
        kernel: ``(*kernel_spatial, out_channels, in_channels)``.
        output_padding: None (inferred) or int/tuple of extra output rows, each < stride.

    Example:
        >>> lamina.ops.conv_transpose(np.ones((1, 4, 4, 3)), np.ones((3, 3, 8, 3)), 2).shape
    """
    op = ConvTranspose(strides, padding, output_padding, data_format, dilation_rate)
    return op(inputs, kernel)
