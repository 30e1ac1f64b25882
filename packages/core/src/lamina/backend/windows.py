"""Window geometry that adapters' convolution, pooling and patch kernels share.

The core hands a kernel explicit, already validated arguments: per-dim strides and dilation
rates (`Ints`), ``(before, after)`` pads per spatial dim (`Pads`, negative amounts crop),
and pairs for the 2-D patch ops (`Pair`). What an adapter without a native kernel then
computes the same way in every array library lives here, as plain Python and NumPy index
arithmetic, so only the library calls stay in the adapter.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from lamina.ops.nn.conv.patches import patch_positions

Ints = tuple[int, ...]
"""One int per spatial dim: strides, dilation rates, pool or output sizes."""
Pads = tuple[tuple[int, int], ...]
"""``(before, after)`` per spatial dim; a negative amount crops."""
Pair = tuple[int, int]
"""Height and width, for the 2-D patch ops (`unfold`, `fold`)."""


def grow_and_crop(pads: Pads) -> tuple[Pads, tuple[slice, ...]]:
    """`pads` split into non-negative pad widths and the slices that then crop.

    For libraries whose pad function refuses negative widths: pad every spatial dim by the
    first result, then index the spatial dims with the second.

    Example:
        >>> from lamina.backend.kit import grow_and_crop
        >>> grow_and_crop(((1, -2), (0, 0)))
        (((1, 0), (0, 0)), (slice(0, -2, None), slice(0, None, None)))
    """
    grow = tuple((max(a, 0), max(b, 0)) for a, b in pads)
    crop = tuple(slice(max(-a, 0), b if b < 0 else None) for a, b in pads)
    return grow, crop


class PatchGrid(NamedTuple):
    """Where `unfold` gathers and `fold` scatter-adds, for an ``(N, C, H, W)`` image.

    The image is zero-padded by `pad_widths` (NCHW, as `np.pad` takes them) to a plane of
    `cells` = ``H' * W'`` cells; `positions` ``(taps, blocks)`` index that flattened plane;
    `crop` (an NCHW key) takes the padded plane back to ``(H, W)``.
    """

    positions: np.ndarray[Any, Any]
    padded: Pair
    pad_widths: tuple[Pair, Pair, Pair, Pair]
    crop: tuple[slice, slice, slice, slice]

    @property
    def taps(self) -> int:
        """Kernel taps per patch (``kh * kw``)."""
        return int(self.positions.shape[0])

    @property
    def blocks(self) -> int:
        """Patches per image."""
        return int(self.positions.shape[1])

    @property
    def cells(self) -> int:
        """Cells of the padded plane."""
        return self.padded[0] * self.padded[1]


def patch_grid(
    size: Pair, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> PatchGrid:
    """The `PatchGrid` of an image of spatial `size` for these `unfold`/`fold` arguments.

    Example:
        >>> from lamina.backend.kit import patch_grid
        >>> grid = patch_grid((3, 3), (2, 2), (1, 1), (0, 0), (1, 1))
        >>> grid.taps, grid.blocks, grid.padded
        (4, 4, (3, 3))
    """
    (h, w), (ph, pw) = size, padding
    all_rows = slice(None)
    return PatchGrid(
        positions=patch_positions(size, kernel_size, dilation, padding, stride),
        padded=(h + 2 * ph, w + 2 * pw),
        pad_widths=((0, 0), (0, 0), (ph, ph), (pw, pw)),
        crop=(all_rows, all_rows, slice(ph, ph + h), slice(pw, pw + w)),
    )


def correlation_window(size1: int, size2: int, mode: str) -> slice:
    """The part of a full 1-D correlation that NumPy's `mode` keeps.

    The full correlation of inputs of lengths `size1` and `size2` has ``size1 + size2 - 1``
    values; ``"same"`` keeps ``max(size1, size2)`` of them around the centre, ``"valid"``
    those where the inputs overlap completely.

    Example:
        >>> from lamina.backend.kit import correlation_window
        >>> correlation_window(5, 3, "same"), correlation_window(5, 3, "valid")
        (slice(1, 6, None), slice(2, 5, None))
    """
    if mode == "full":
        return slice(None)
    if mode == "same":
        start = (size2 - 1) // 2 if size1 >= size2 else size1 // 2
        return slice(start, start + max(size1, size2))
    start = min(size1, size2) - 1
    return slice(start, start + abs(size1 - size2) + 1)
