"""Patch ops: depth_to_space, space_to_depth, unfold (im2col) and fold (col2im)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.nn.conv._args import data_format_arg, int_tuple, join_shape, split_shape
from lamina.ops.shapes import Shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["depth_to_space", "fold", "space_to_depth", "unfold"]


def patch_positions(
    size: tuple[int, int],
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    padding: tuple[int, int],
    stride: tuple[int, int],
) -> np.ndarray[Any, Any]:
    """Flat indices into the zero-padded ``(H + 2p) * (W + 2p)`` image, shape ``(K, L)``.

    Row ``k = ki * kw + kj`` is kernel tap ``(ki, kj)``, column ``l`` the patch in row-major
    order. Backends without a native unfold/fold gather or scatter-add with it.
    """
    (h, w), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = size, kernel, dilation, padding, stride
    width = w + 2 * pw
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    rows = (np.arange(kh) * dh)[:, None, None, None] + (np.arange(oh) * sh)[None, None, :, None]
    cols = (np.arange(kw) * dw)[None, :, None, None] + (np.arange(ow) * sw)[None, None, None, :]
    return np.asarray((rows * width + cols).reshape(kh * kw, oh * ow), dtype=np.int32)


def _pair(op: str, arg: str, value: Any, minimum: int = 1) -> tuple[int, int]:
    a, b = int_tuple(op, arg, value, 2, minimum)
    return a, b


def _block(op: str, block_size: Any) -> int:
    try:
        if isinstance(block_size, bool):
            raise TypeError
        b = operator.index(block_size)
    except TypeError:
        raise TypeError(
            f"`{op}`: argument `block_size` must be an int. Received: block_size={block_size!r}"
        ) from None
    if b < 2:
        raise ValueError(f"`{op}`: argument `block_size` must be >= 2. Received: {b}")
    return b


def _scale(d: int | None, mul: int, div: int) -> int | None:
    return None if d is None else d * mul // div


def _rank4(op: str, shape: Shape, layout: str, arg: str = "x") -> None:
    if len(shape) != 4:
        raise ValueError(
            f"`{op}`: argument `{arg}` must have rank 4 {layout}. Received: {arg}.shape={shape}"
        )


class _Space(Op):
    def __init__(
        self, block_size: int, data_format: str = "channels_last", name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.block_size = _block(self.op_name, block_size)
        self.data_format = data_format_arg(self.op_name, data_format)

    def _plan(self, x: Shape) -> Shape:
        raise NotImplementedError

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self._plan(static_shape(x)), dtypes.dtype_of(x))


class DepthToSpace(_Space):
    def _plan(self, x: Shape) -> Shape:
        _rank4(self.op_name, x, "(batch, height, width, channels)")
        n, c, (h, w) = split_shape(x, self.data_format)
        b = self.block_size
        if c is not None and c % (b * b):
            raise ValueError(
                f"`{self.op_name}`: the channels ({c}) must be divisible by block_size**2 "
                f"({b * b}). Received: x.shape={x}"
            )
        cout = None if c is None else c // (b * b)
        return join_shape(n, cout, (_scale(h, b, 1), _scale(w, b, 1)), self.data_format)

    def call(self, x: Any) -> Any:
        self._plan(static_shape(x))
        return composite("nn", "depth_to_space")(to_tensor(x), self.block_size, self.data_format)


class SpaceToDepth(_Space):
    def _plan(self, x: Shape) -> Shape:
        _rank4(self.op_name, x, "(batch, height, width, channels)")
        n, c, (h, w) = split_shape(x, self.data_format)
        b = self.block_size
        if (h is not None and h % b) or (w is not None and w % b):
            raise ValueError(
                f"`{self.op_name}`: the height and width must be divisible by block_size "
                f"({b}). Received: x.shape={x}"
            )
        cout = None if c is None else c * b * b
        return join_shape(n, cout, (_scale(h, 1, b), _scale(w, 1, b)), self.data_format)

    def call(self, x: Any) -> Any:
        self._plan(static_shape(x))
        return composite("nn", "space_to_depth")(to_tensor(x), self.block_size, self.data_format)


class _Patches(Op):
    def __init__(
        self,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        op = self.op_name
        self.kernel_size = _pair(op, "kernel_size", kernel_size)
        self.dilation = _pair(op, "dilation", dilation)
        self.padding = _pair(op, "padding", padding, 0)
        self.stride = _pair(op, "stride", stride)

    def _blocks(self, size: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
        out: list[int | None] = []
        args = zip(size, self.kernel_size, self.dilation, self.padding, self.stride)
        for d, k, dil, p, s in args:
            if d is None:
                out.append(None)
                continue
            n = (d + 2 * p - dil * (k - 1) - 1) // s + 1
            if n < 1:
                raise ValueError(
                    f"`{self.op_name}`: the kernel {self.kernel_size} (dilation "
                    f"{self.dilation}) does not fit the padded spatial size {size}."
                )
            out.append(n)
        return out[0], out[1]


class Unfold(_Patches):
    def _plan(self, x: Shape) -> tuple[Shape, tuple[int | None, int | None]]:
        _rank4(self.op_name, x, "(batch, channels, height, width)", "input")
        oh, ow = self._blocks((x[2], x[3]))
        k = self.kernel_size[0] * self.kernel_size[1]
        c = None if x[1] is None else x[1] * k
        length = None if oh is None or ow is None else oh * ow
        return (x[0], c, length), (x[2], x[3])

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self._plan(static_shape(x))[0], dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        self._plan(static_shape(x))
        return backend().nn.unfold(
            to_tensor(x), self.kernel_size, self.dilation, self.padding, self.stride
        )


class Fold(_Patches):
    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(kernel_size, dilation, padding, stride, name)
        self.output_size = _pair(self.op_name, "output_size", output_size)

    def _plan(self, x: Shape) -> Shape:
        op = self.op_name
        if len(x) != 3:
            raise ValueError(
                f"`{op}`: argument `x` must have rank 3 (batch, channels * kernel_h * kernel_w, "
                f"blocks). Received: x.shape={x}"
            )
        k = self.kernel_size[0] * self.kernel_size[1]
        oh, ow = self._blocks((self.output_size[0], self.output_size[1]))
        blocks = (oh or 0) * (ow or 0)
        if (x[1] is not None and x[1] % k) or (x[2] is not None and x[2] != blocks):
            raise ValueError(
                f"`{op}`: expected x.shape=(batch, C * {k}, {blocks}) for kernel_size="
                f"{self.kernel_size} and output_size={self.output_size}. Received: x.shape={x}"
            )
        return (x[0], None if x[1] is None else x[1] // k, *self.output_size)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        return SymbolicTensor(self._plan(static_shape(x)), dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        self._plan(static_shape(x))
        return backend().nn.fold(
            to_tensor(x),
            self.output_size,
            self.kernel_size,
            self.dilation,
            self.padding,
            self.stride,
        )


def depth_to_space(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Move channel blocks into ``block_size x block_size`` spatial tiles (TF's DCR order).

    Example:
        >>> lamina.ops.depth_to_space(np.ones((1, 2, 2, 8)), 2).shape  # (1, 4, 4, 2)
    """
    return DepthToSpace(block_size, data_format)(x)


def space_to_depth(x: Any, block_size: int, data_format: str = "channels_last") -> Any:
    """Move ``block_size x block_size`` spatial tiles into channels (inverse of depth_to_space).

    Example:
        >>> lamina.ops.space_to_depth(np.ones((1, 4, 4, 2)), 2).shape  # (1, 2, 2, 8)
    """
    return SpaceToDepth(block_size, data_format)(x)


def unfold(
    input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Any:
    """Extract sliding patches (im2col), as ``torch.nn.functional.unfold``.

    Args:
        input: ``(batch, channels, height, width)`` (channels_first).
        kernel_size: ints or pairs.
        dilation: ints or pairs.
        padding: ints or pairs.
        stride: ints or pairs.

    Returns:
        ``(batch, channels * kh * kw, blocks)``, channel-major then kernel tap.

    Example:
        >>> lamina.ops.unfold(np.ones((1, 3, 4, 4)), 2).shape  # (1, 12, 9)
    """
    return Unfold(kernel_size, dilation, padding, stride)(input)


def fold(
    x: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Any:
    """Sum sliding patches back into an image (col2im), as ``torch.nn.functional.fold``.

    Args:
        x: ``(batch, channels * kh * kw, blocks)``.
        output_size: ``(height, width)`` of the result.

    Returns:
        ``(batch, channels, height, width)``; overlapping patches add up.

    Example:
        >>> lamina.ops.fold(np.ones((1, 12, 9)), (4, 4), 2).shape  # (1, 3, 4, 4)
    """
    return Fold(output_size, kernel_size, dilation, padding, stride)(x)
