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

from ._types import DType, Tensor


class ImageOps(Protocol):
    """Image ops: resizing, colour spaces, geometric transforms."""

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

    def crop(self, x: Tensor, begin: tuple[int, ...], size: tuple[int, ...]) -> Tensor:
        """The slice ``x[begin[i]:begin[i] + size[i]]`` along every axis."""
        ...

    def correlate_axes(
        self, x: Tensor, kernels: tuple[tuple[int, tuple[float, ...]], ...]
    ) -> Tensor:
        """Valid 1-D correlation of float `x` with each ``(axis, taps)`` in turn."""
        ...

    def saturate_cast(self, x: Tensor, dtype: DType) -> Tensor:
        """Cast float `x` to `dtype`, rounding and clipping to its range when it is an int."""
        ...

    def map_coordinates(
        self, inputs: Tensor, coordinates: Tensor, order: int, fill_mode: str, fill_value: float
    ) -> Tensor:
        """Sample float `inputs` at `coordinates` (shape ``(inputs.ndim, *out)``), order 0 or 1.

        fill_mode is one of constant|nearest|wrap|mirror|reflect, applied to neighbour indices.
        """
        ...

    def affine_transform(
        self,
        images: Tensor,
        transform: Tensor,
        order: int,
        fill_mode: str,
        fill_value: float,
        channels_first: bool,
    ) -> Tensor:
        """Resample batched float `images` by projective transforms ``(batch, 8)``."""
        ...

    def elastic_transform(
        self,
        images: Tensor,
        alpha: float,
        kernel: tuple[float, ...],
        order: int,
        fill_mode: str,
        fill_value: float,
        seed: int,
        channels_first: bool,
    ) -> Tensor:
        """Displace batched float `images` by a smoothed normal field drawn from `seed`."""
        ...

    def extract_patches(
        self,
        x: Tensor,
        size: tuple[int, ...],
        strides: tuple[int, ...],
        dilation_rate: tuple[int, ...],
        channels_first: bool,
    ) -> Tensor:
        """Valid patches of batched `x` (already padded), flattened into the channel axis."""
        ...

