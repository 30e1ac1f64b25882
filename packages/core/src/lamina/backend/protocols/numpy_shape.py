"""Shape manipulation, joining, splitting, indexing and selection."""

from __future__ import annotations

from typing import Protocol

from ._types import DType, Tensor


class NumpyShapeOps(Protocol):
    """Shape manipulation, joining, splitting, indexing and selection.

    Axes arrive canonical (non-negative ints, in range); lists of tensors arrive promoted to
    one dtype; shapes are tuples of ints (-1 marks an unknown dim in `reshape`).

    Composites the core writes once on these primitives (`lamina.ops.composites.numpy`):
    `size` (for a shape with dynamic dims), `tril`, `triu`. A backend may still define one,
    with the same signature, where a native kernel is faster; the core then calls it.

    Every member takes its arguments positionally, so a library function that computes
    exactly what a member promises may be bound to its name (``reshape = jnp.reshape``).
    """

    def reshape(self, x: Tensor, newshape: tuple[int, ...], /) -> Tensor: ...

    def broadcast_to(self, x: Tensor, shape: tuple[int, ...], /) -> Tensor: ...

    def expand_dims(self, x: Tensor, axes: tuple[int, ...], /) -> Tensor:
        """`axes`: sorted positions of the new dims in the output."""
        ...

    def squeeze(self, x: Tensor, axes: tuple[int, ...], /) -> Tensor:
        """`axes`: sorted axes of size 1 (possibly empty)."""
        ...

    def transpose(self, x: Tensor, axes: tuple[int, ...], /) -> Tensor:
        """`axes`: a full permutation."""
        ...

    def flip(self, x: Tensor, axes: tuple[int, ...], /) -> Tensor: ...

    def roll(self, x: Tensor, shift: tuple[int, ...], axes: tuple[int, ...], /) -> Tensor:
        """`shift` and `axes` have the same length."""
        ...

    def tile(self, x: Tensor, reps: tuple[int, ...], /) -> Tensor:
        """`reps` has one entry per dim of `x`."""
        ...

    def repeat(self, x: Tensor, repeats: int | tuple[int, ...], axis: int, /) -> Tensor: ...

    def concatenate(self, xs: list[Tensor], axis: int, /) -> Tensor: ...

    def stack(self, xs: list[Tensor], axis: int, /) -> Tensor: ...

    def split(self, x: Tensor, indices: tuple[int, ...], axis: int, /) -> list[Tensor]:
        """Split at the non-decreasing offsets `indices` (in ``[0, dim]``)."""
        ...

    def get_item(self, x: Tensor, key: tuple[int | slice | None, ...], /) -> Tensor:
        """Basic indexing: one int or slice per dim (plus None); ints are in range and
        non-negative, slice steps positive, where the dim is known."""
        ...

    def take(self, x: Tensor, indices: Tensor, axis: int, /) -> Tensor:
        """`indices`: int32/int64, any rank (0-d too); negative values count from the end."""
        ...

    def take_along_axis(self, x: Tensor, indices: Tensor, axis: int, /) -> Tensor:
        """`x` and `indices` already match in every dim but `axis`; negatives allowed."""
        ...

    def where(self, condition: Tensor, x1: Tensor, x2: Tensor, /) -> Tensor:
        """`condition` is bool; `x1` and `x2` share a dtype; all three broadcast."""
        ...

    def nonzero(self, x: Tensor, /) -> tuple[Tensor, ...]: ...

    def unravel_index(self, indices: Tensor, shape: tuple[int, ...], /) -> tuple[Tensor, ...]: ...

    def pad(self, x: Tensor, pad_width: tuple[tuple[int, int], ...], value: Tensor, /) -> Tensor:
        """Constant padding with the scalar `value` (of `x`'s dtype)."""
        ...

    def diag(self, x: Tensor, k: int, /) -> Tensor:
        """`x` is 1-D (build a matrix) or 2-D (extract a diagonal)."""
        ...

    def diagonal(self, x: Tensor, offset: int, axis1: int, axis2: int, /) -> Tensor: ...

    def view(self, x: Tensor, dtype: DType, /) -> Tensor:
        """Bit-cast; the last axis scales by the ratio of item sizes (already validated)."""
        ...
