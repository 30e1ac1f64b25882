"""Control flow and structural ops: cond, loops, scan, scatter, slice.

The core flattens every nested structure before calling a backend: loop variables, carries
and branch outputs arrive as flat tuples of native tensors, and the functions handed over
take and return flat tuples. Backends never see `lamina.tree` structures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ._types import Tensor

Flat = tuple[Tensor, ...]
"""A flattened structure: the leaves, in `lamina.tree.flatten` order."""


class ControlFlowOps(Protocol):
    """Control flow and structural ops: gradients, block updates, scatter.

    Composites the core writes once (`lamina.ops.composites.control_flow`): `associative_scan`,
    `cond`, `fori_loop`, `saturate_cast`, `scan`, `slice`, `switch`, `unstack`,
    `vectorized_map`, `while_loop`. Those loops and branches run eagerly in Python; a backend
    that traces steps into a graph (JAX, TensorFlow) defines its own with the same
    signature, as does any backend with a faster native kernel, and the core calls it.
    """

    def stop_gradient(self, x: Tensor) -> Tensor:
        """`x`, with no gradient flowing back through it."""
        ...

    def custom_gradient(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap `f` (returning ``(outputs, grad_fn)``) so gradients use `grad_fn`."""
        ...

    def slice_update(self, inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
        """`inputs` with the block at `start_indices` replaced; starts are clamped to fit."""
        ...

    def scatter(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """Zeros of `shape` with `values` added at the int `indices` (duplicates summed)."""
        ...

    def scatter_update(self, inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
        """`inputs` with the entries at the int `indices` set to `updates`."""
        ...
