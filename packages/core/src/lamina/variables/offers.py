"""Arrays a variable may keep as its memory instead of copying them.

Restoring a weight copies it twice when the read fills one buffer and the variable copies
that buffer into its own. A reader that has just filled buffers nobody else holds offers
them (`arrays_offered`); a backend whose variables can take host memory as it is asks
`take_offered` when assigned, and keeps the buffer. The zeros that stand in for weights a
loader overwrites anyway (`lamina.layers.layer.initializers_skipped`) are offered the same
way (`offer`), so they are never copied either.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from lamina.backend.scoped import ScopedVar

_OFFERED: ScopedVar[dict[int, np.ndarray] | None] = ScopedVar(
    "lamina_offered_arrays", default=None
)


@contextlib.contextmanager
def arrays_offered(arrays: Iterable[np.ndarray] = ()) -> Iterator[None]:
    """Inside, a variable given one of `arrays` (or of those `offer` adds) may keep that
    array's memory instead of copying it; each array goes to one variable at most.

    Only C-contiguous, writeable arrays are offered. A backend finds out with
    `take_offered`.
    """
    token = _OFFERED.set({})
    try:
        for array in arrays:
            offer(array)
        yield
    finally:
        _OFFERED.reset(token)


ALIGNMENT = 64
"""The byte boundary that `aligned_empty` arrays start at: a backend whose kernels assume
aligned memory (TensorFlow's Eigen with AVX-512: 64) can make a tensor over them."""


def aligned_empty(shape: tuple[int, ...], dtype: Any, zeroed: bool = False) -> np.ndarray:
    """A new C-contiguous array whose memory starts on an `ALIGNMENT` boundary: what
    readers fill and offer. `zeroed` fills it with zeros (pages the OS zeroes when first
    touched, as `np.zeros`)."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    raw = (np.zeros if zeroed else np.empty)(nbytes + ALIGNMENT, np.uint8)
    skip = -raw.ctypes.data % ALIGNMENT
    return raw[skip : skip + nbytes].view(dtype).reshape(shape)


def offer(array: np.ndarray) -> None:
    """Add `array` to the offers of the innermost `arrays_offered` (none: nothing)."""
    offers = _OFFERED.get()
    if offers is not None and array.nbytes and array.flags.c_contiguous and array.flags.writeable:
        offers[array.ctypes.data] = array


def take_offered(address: int, nbytes: int) -> bool:
    """Whether the `nbytes` of host memory at `address` are an array offered now.

    True ends the offer: the caller keeps that memory as a variable's value (a tensor
    made from the array without a copy, which keeps the array alive).
    """
    offers = _OFFERED.get()
    if not offers:
        return False
    array = offers.get(address)
    if array is None or array.nbytes != nbytes:
        return False
    del offers[address]
    return True
