"""Batches sliced from in-memory arrays (NumPy, backend tensors, lists and dicts of them)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from lamina import tree
from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import (
    class_weight_to_sample_weights,
    is_array_like,
    is_plain_sequence,
    to_numpy,
)

DEFAULT_BATCH_SIZE = 32
SHUFFLE_CHOICES = (True, False, "batch")


def to_array_structure(x: Any, name: str) -> Any:
    """`x` with every leaf converted to a NumPy array of rank >= 1.

    Args:
        x: an array, tensor, pandas object, a list of numbers, or a list/tuple/dict of them.
        name: the argument's name, for error messages.

    Returns:
        The same structure with NumPy array leaves.

    Raises:
        TypeError: a leaf is not array data.
        ValueError: a leaf is a scalar (it has no samples dimension).
    """
    if isinstance(x, dict):
        return {k: to_array_structure(v, f"{name}[{k!r}]") for k, v in x.items()}
    if is_plain_sequence(x):
        out = np.asarray(x)
    elif isinstance(x, (list, tuple)):
        items = [to_array_structure(v, f"{name}[{i}]") for i, v in enumerate(x)]
        return items if isinstance(x, list) else tuple(items)
    elif is_array_like(x):
        out = to_numpy(x)
    else:
        raise TypeError(
            f"Argument `{name}` must be array data (a NumPy array, a tensor, or a list/dict "
            f"of them). Received: {name} of type {type(x).__name__}"
        )
    if out.ndim == 0:
        raise ValueError(
            f"Argument `{name}` must have a samples dimension (rank >= 1). "
            f"Received: {name} of shape {out.shape}"
        )
    return out


def _num_samples(structure: Any, name: str) -> int:
    sizes = {int(a.shape[0]) for a in tree.flatten(structure)}
    if len(sizes) > 1:
        shapes = tree.map_structure(lambda a: tuple(a.shape), structure)
        raise ValueError(
            f"All arrays in argument `{name}` must have the same number of samples (first "
            f"dimension). Received: {name} with shapes {shapes}"
        )
    return sizes.pop()


def check_batch_size(batch_size: Any) -> None:
    """Raise unless `batch_size` is None or a positive int."""
    if batch_size is None:
        return
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or (
        batch_size < 1
    ):
        raise ValueError(
            f"Argument `batch_size` must be a positive int. Received: batch_size={batch_size!r}"
        )


class ArrayDataAdapter(DataAdapter):
    """Slices ``(x, y, sample_weight)`` arrays into batches, shuffling each pass on request.

    Args:
        x: the inputs (array, list of numbers, or nested list/tuple/dict of arrays).
        y: the targets, same nesting rules, or None.
        sample_weight: per-sample weights, or None.
        batch_size: samples per batch (default 32); the last batch may be smaller.
        shuffle: True (new order each pass), False, or "batch" (the order of whole batches
            and the order inside each batch are shuffled, each batch keeping a contiguous
            block of samples).
        class_weight: ``{class: weight}`` turned into sample weights from `y`.

    Raises:
        ValueError: the parts have different numbers of samples, the batch size or shuffle
            value is invalid, or `class_weight` cannot be used with these targets.
    """

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        shuffle: bool | str = False,
        class_weight: dict[int, float] | None = None,
    ) -> None:
        check_batch_size(batch_size)
        if shuffle not in SHUFFLE_CHOICES or (isinstance(shuffle, int) and not isinstance(
            shuffle, bool
        )):
            raise ValueError(
                "Argument `shuffle` must be True, False or \"batch\". "
                f"Received: shuffle={shuffle!r}"
            )
        self._x = to_array_structure(x, "x")
        self._y = None if y is None else to_array_structure(y, "y")
        self._sw = None if sample_weight is None else to_array_structure(
            sample_weight, "sample_weight"
        )
        n = _num_samples(self._x, "x")
        if n == 0:
            raise ValueError("Argument `x` must hold at least one sample. Received: 0 samples")
        if self._y is not None:
            ny = _num_samples(self._y, "y")
            if ny != n:
                raise ValueError(
                    "Arguments `x` and `y` must have the same number of samples. "
                    f"Received: x with {n} samples, y with {ny} samples"
                )
        if class_weight is not None:
            if self._sw is not None:
                raise ValueError(
                    "Arguments `class_weight` and `sample_weight` cannot be used together; "
                    "fold the class weights into `sample_weight`. Received: both"
                )
            if self._y is None:
                raise ValueError(
                    "Argument `class_weight` needs targets `y`. Received: y=None"
                )
            self._sw = class_weight_to_sample_weights(self._y, class_weight)
        if self._sw is not None:
            nw = _num_samples(self._sw, "sample_weight")
            if nw != n:
                raise ValueError(
                    "Argument `sample_weight` must have one entry per sample of `x`. "
                    f"Received: sample_weight with {nw} entries, x with {n} samples"
                )
        self._num_samples = n
        self._batch_size = int(batch_size) if batch_size is not None else min(
            DEFAULT_BATCH_SIZE, n
        )
        self._shuffle = shuffle
        # Seeded from NumPy's global generator, which `lamina.utils.set_random_seed` seeds.
        self._rng = np.random.default_rng(int(np.random.randint(0, 2**31 - 1)))

    @property
    def num_samples(self) -> int:
        return self._num_samples

    @property
    def num_batches(self) -> int:
        return math.ceil(self._num_samples / self._batch_size)

    @property
    def batch_size(self) -> int:
        return self._batch_size

    @property
    def has_partial_batch(self) -> bool:
        return self._num_samples % self._batch_size != 0

    def _pass_indices(self) -> np.ndarray | None:
        """The sample order of one pass (None: the natural order, sliced without copies)."""
        n, bs = self._num_samples, self._batch_size
        if self._shuffle is True:
            return self._rng.permutation(n)
        if self._shuffle == "batch":
            starts = np.arange(0, n, bs)
            full = starts[starts + bs <= n]
            order = list(self._rng.permutation(full))
            if n % bs:
                order.append(starts[-1])  # the partial batch stays last
            chunks = [s + self._rng.permutation(min(bs, n - s)) for s in order]
            return np.concatenate(chunks)
        return None

    def _part(self, structure: Any, index: Any) -> Any:
        if structure is None:
            return None
        if isinstance(index, slice):
            return tree.map_structure(lambda a: a[index], structure)
        return tree.map_structure(lambda a: np.take(a, index, axis=0), structure)

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        indices = self._pass_indices()
        bs = self._batch_size
        for start in range(0, self._num_samples, bs):
            stop = min(start + bs, self._num_samples)
            index: Any = slice(start, stop) if indices is None else indices[start:stop]
            x = self._part(self._x, index)
            if self._y is None and self._sw is None:
                yield (x,)
            elif self._sw is None:
                yield (x, self._part(self._y, index))
            else:
                yield (x, self._part(self._y, index), self._part(self._sw, index))
