"""Reductions, statistics, cumulative ops, sorting and searching.

The core has already converted and promoted the inputs: `axis` arrives as a sorted tuple of
non-negative ints (or None for all axes) where several axes are allowed, as one non-negative
int (or None: flatten) where only one is; float-only ops receive float tensors. Output
dtypes that frameworks disagree on (indices, counts) are cast by the core afterwards.
"""

from __future__ import annotations

from typing import Any, Protocol

from ._types import Tensor

Axes = tuple[int, ...] | None


class NumpyReductionOps(Protocol):
    """Reductions, statistics, cumulative ops, sorting and searching.

    Composites the core writes once on these primitives (`lamina.ops.composites.numpy`):
    `allclose`, `argpartition` (a full sort), `average`, `count_nonzero`, `diff`, `median`,
    `nanargmax`, `nanargmin`, `nancumprod`, `nancumsum`, `nanmax`, `nanmean`, `nanmedian`,
    `nanmin`, `nanprod`, `nansum`, `std`, `unique` (on `sorted_unique`). A backend may still
    define one, with the same signature, where a native kernel is faster; the core then
    calls it.
    """

    # Plain reductions over `axis` (all of them when None).
    def sum(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor: ...
    def prod(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor: ...
    def mean(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor: ...
    def max(
        self, x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None
    ) -> Tensor: ...
    def min(
        self, x: Tensor, axis: Axes = None, keepdims: bool = False, initial: Any = None
    ) -> Tensor: ...
    def all(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
        """`x` is bool."""
        ...

    def any(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
        """`x` is bool."""
        ...

    def var(self, x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor: ...
    def quantile(
        self,
        x: Tensor,
        q: Tensor,
        axis: Axes = None,
        method: str = "linear",
        keepdims: bool = False,
    ) -> Tensor:
        """`q` is a float scalar or 1-D tensor in [0, 1]; its dims lead the output."""
        ...

    def nanquantile(
        self,
        x: Tensor,
        q: Tensor,
        axis: Axes = None,
        method: str = "linear",
        keepdims: bool = False,
    ) -> Tensor: ...

    # Index-valued reductions (any int dtype; the core casts to int32).
    def argmax(self, x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor: ...
    def argmin(self, x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor: ...

    # Cumulative ops along one axis (None: over the flattened tensor), in `x`'s dtype.
    def cumsum(self, x: Tensor, axis: int | None = None) -> Tensor: ...
    def cumprod(self, x: Tensor, axis: int | None = None) -> Tensor: ...

    # Sorting and searching.
    def sort(self, x: Tensor, axis: int | None = -1) -> Tensor: ...
    def argsort(self, x: Tensor, axis: int | None = -1) -> Tensor:
        """A stable sort's indices, so ties order alike on every backend."""
        ...

    def searchsorted(self, sorted_sequence: Tensor, values: Tensor, side: str = "left") -> Tensor:
        """`sorted_sequence` is 1-D and of `values`' dtype."""
        ...

    def sorted_unique(
        self, x: Tensor, axis: int | None, size: int | None
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Sorted unique values (of the flattened `x` when `axis` is None, else the unique
        slices along `axis`), each element's (or slice's) index among them, and counts.

        The indices may come in any shape holding them in order (the core reshapes them).
        `size` is a hint for backends whose shapes must be static (JAX under `jit`): such a
        backend returns exactly `size` values, the missing ones with count 0; any other
        returns them all, and the core composite `unique` cuts or pads them.
        """
        ...

    # Statistics producing new shapes.
    def bincount(self, x: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
        """`x` is 1-D or 2-D (counted per row) of non-negative ints."""
        ...

    def histogram(
        self, x: Tensor, bins: int, range: tuple[float, float] | None
    ) -> tuple[Tensor, Tensor]:
        """Counts and the `bins + 1` edges of 1-D float `x`; the last bin is closed."""
        ...

    def corrcoef(self, x: Tensor) -> Tensor:
        """`x` is a 1-D or 2-D float tensor, rows being variables."""
        ...
