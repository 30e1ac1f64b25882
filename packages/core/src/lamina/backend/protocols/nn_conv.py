"""Convolution, pooling, attention, CTC and patch ops.

The core has already validated shapes, promoted dtypes, resolved `data_format` to
``"channels_last"`` or ``"channels_first"`` and turned window paddings into explicit
``(before, after)`` pairs per spatial dim, so a backend only translates.
"""

from __future__ import annotations

from typing import Protocol

from ._types import Tensor

Ints = tuple[int, ...]
Pads = tuple[tuple[int, int], ...]


class NNConvOps(Protocol):
    """Convolution, pooling, attention, CTC and patch ops.

    Composites the core writes once on these primitives (`lamina.ops.composites.nn`):
    `adaptive_average_pool`, `adaptive_max_pool`, `ctc_greedy_decode`, `depth_to_space`,
    `depthwise_conv`, `dot_product_attention`, `space_to_depth`. A backend may still define
    one, with the same signature, where a native kernel is faster; the core then calls it.
    A backend's `dot_product_attention` may return None for arguments its fused kernel does
    not take (a logit soft cap...): the core then runs the unfused formula.

    `conv`, `conv_transpose` and the pools take their arguments positionally, so a kernel
    written for one layout can be made a member with `kit.InLayout`.
    """

    def conv(
        self,
        inputs: Tensor,
        kernel: Tensor,
        strides: Ints,
        padding: Pads,
        data_format: str,
        dilation_rate: Ints,
        /,
    ) -> Tensor:
        """Kernel ``(*spatial, in // groups, out)``; ``groups = in // kernel.shape[-2]``."""
        ...

    def conv_transpose(
        self,
        inputs: Tensor,
        kernel: Tensor,
        strides: Ints,
        padding: Pads,
        data_format: str,
        dilation_rate: Ints,
        /,
    ) -> Tensor:
        """Kernel ``(*spatial, out, in)``.

        Equals a stride-1 conv of the input dilated by `strides` (zeros between samples)
        with the spatially flipped kernel and `padding` (which may be any ints >= 0).
        """
        ...

    def max_pool(
        self, inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str, /
    ) -> Tensor:
        """Padded cells never win (they are -inf)."""
        ...

    def average_pool(
        self, inputs: Tensor, pool_size: Ints, strides: Ints, padding: Pads, data_format: str, /
    ) -> Tensor:
        """Padded cells are not counted in the mean."""
        ...

    def ctc_loss(
        self,
        target: Tensor,
        output: Tensor,
        target_length: Tensor,
        output_length: Tensor,
        mask_index: int,
    ) -> Tensor:
        """Per-entry negative log-likelihood; `output` holds logits ``(B, T, C)``."""
        ...

    def unfold(
        self,
        x: Tensor,
        kernel_size: tuple[int, int],
        dilation: tuple[int, int],
        padding: tuple[int, int],
        stride: tuple[int, int],
    ) -> Tensor:
        """``(N, C, H, W)`` to ``(N, C * kh * kw, L)``, as ``torch.nn.functional.unfold``."""
        ...

    def fold(
        self,
        x: Tensor,
        output_size: tuple[int, int],
        kernel_size: tuple[int, int],
        dilation: tuple[int, int],
        padding: tuple[int, int],
        stride: tuple[int, int],
    ) -> Tensor:
        """``(N, C * kh * kw, L)`` to ``(N, C, H, W)``, as ``torch.nn.functional.fold``."""
        ...
