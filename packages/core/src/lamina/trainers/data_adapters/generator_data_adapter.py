"""Batches from a Python generator or iterator (read once: it cannot be restarted)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import standardize_batch


def is_generator_like(x: Any) -> bool:
    """True for generators and other iterators (objects with ``__next__``)."""
    return hasattr(x, "__next__") and hasattr(x, "__iter__")


class GeneratorDataAdapter(DataAdapter):
    """Reads batches from an iterator; every pass continues where the last one stopped.

    A generator has no length and cannot be rewound, so `num_batches` is None and a pass
    ends only when the generator is exhausted (or when `EpochIterator` has taken
    `steps_per_epoch` batches).

    Args:
        generator: yields batches of the form `x`, `(x,)`, `(x, y)` or
            `(x, y, sample_weight)`.
    """

    reiterable = False

    def __init__(self, generator: Any) -> None:
        if not is_generator_like(generator):
            raise TypeError(
                "Argument `x` must be a generator or iterator for this adapter. "
                f"Received: x of type {type(generator).__name__}"
            )
        self._generator = generator

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        for batch in self._generator:
            yield standardize_batch(batch)
