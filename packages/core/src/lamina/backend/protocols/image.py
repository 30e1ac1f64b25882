"""Image ops: resizing, colour spaces, geometric transforms.

The core validates every argument, resolves `data_format`, computes resampling weights and
filter taps (plain Python/NumPy numbers, from static shapes) and hands backends float tensors.
Backends only translate these few primitives; every public image op is composed from them in
`lamina.ops.image`, so results agree across backends up to float rounding.

Images reaching a backend are batched (rank 4, or rank 5 for volumes); ``channels_first``
says where their channel axis is.
"""

from __future__ import annotations

from typing import Protocol

from ._types import Tensor


class ImageOps(Protocol):
    """Image ops: resizing, colour spaces, geometric transforms.

    Composites the core writes once on these primitives (`lamina.ops.composites.image`):
    `affine_transform`, `correlate_axes`, `crop`, `elastic_transform`, `extract_patches`,
    `map_coordinates`, `saturate_cast`. A backend may still define one, with the same
    signature, where a native kernel is faster; the core then calls it.
    """

    def resample_axes(self, x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
        """Contract each `axis` of float `x` with its ``(out, in)`` weight matrix."""
        ...

    def pad(
        self,
        x: Tensor,
        paddings: tuple[tuple[int, int], ...],
        mode: str,
        constant_value: float,
    ) -> Tensor:
        """Pad each axis by ``(before, after)``; NumPy modes: constant, reflect, symmetric, edge."""
        ...
