"""`split_dataset` and `get_source_inputs`."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from lamina import tree
from lamina.utils import _batches
from lamina.utils._batches import PartSpec, SampleBatches


def _split_sizes(left_size: Any, right_size: Any, total: int) -> tuple[int, int]:
    """Keras 3's rules: a float is a fraction in (0, 1), an int a count in (0, total)."""
    if left_size is None and right_size is None:
        raise ValueError(
            "split_dataset: at least one of `left_size` and `right_size` must be given. "
            "Received: left_size=None, right_size=None"
        )
    sizes = {}
    for name, value in (("left_size", left_size), ("right_size", right_size)):
        if value is None:
            continue
        if type(value) not in (int, float):
            raise TypeError(
                f"split_dataset: argument `{name}` must be an int or a float. "
                f"Received: {name}={value!r} (of type {type(value).__name__})"
            )
        if (type(value) is int and not 0 < value < total) or (
            type(value) is float and not 0 < value < 1
        ):
            raise ValueError(
                f"split_dataset: argument `{name}` must be a float in (0, 1) or an int in "
                f"(0, {total}) (the number of samples). Received: {name}={value!r}"
            )
        sizes[name] = round(value * total) if type(value) is float else int(value)
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError(
            "split_dataset: `left_size` and `right_size` add up to more than 1. "
            f"Received: left_size={left_size!r}, right_size={right_size!r}"
        )
    left = sizes.get("left_size", total - sizes.get("right_size", 0))
    right = sizes.get("right_size", total - left)
    if left + right > total:
        raise ValueError(
            f"split_dataset: `left_size` and `right_size` ask for {left + right} samples; "
            f"the dataset has {total}. Received: left_size={left_size!r}, "
            f"right_size={right_size!r}"
        )
    if left == 0 or right == 0:
        raise ValueError(
            f"split_dataset: a split of {total} samples would leave one side empty. "
            f"Received: left_size={left_size!r}, right_size={right_size!r}"
        )
    return left, right


def _samples(dataset: Any) -> tuple[list[Any], int | None, bool]:
    """(samples, batch size, came from tf.data) of any dataset `split_dataset` takes."""
    if _batches.tensorflow_available():
        from lamina.utils._tf_data import is_tf_dataset, tf_dataset_samples

        if is_tf_dataset(dataset):
            samples, batch_size = tf_dataset_samples(dataset)
            return samples, batch_size, True
    if isinstance(dataset, (np.ndarray, list, tuple, dict)):
        leaves = [np.asarray(x) for x in tree.flatten(dataset)]
        if not leaves or any(len(x) != len(leaves[0]) for x in leaves):
            raise ValueError(
                "split_dataset: the arrays of `dataset` must all have the same length. "
                f"Received: lengths {[len(x) for x in leaves]}"
            )
        rows = (
            [tree.pack_sequence_as(dataset, [x[i] for x in leaves]) for i in range(len(leaves[0]))]
            if not isinstance(dataset, np.ndarray)
            else list(dataset)
        )
        return rows, None, False
    if hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__"):
        return [dataset[i] for i in range(len(dataset))], None, False
    raise TypeError(
        "split_dataset: argument `dataset` must be a tf.data.Dataset, a map-style dataset "
        "(a torch Dataset), a NumPy array, or a list/tuple/dict of arrays of one length. "
        f"Received: dataset of type {type(dataset).__name__}"
    )


class SampleList:
    """A map-style dataset over a list of samples (what a torch DataLoader takes)."""

    def __init__(self, samples: list[Any]) -> None:
        self.samples = samples

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> Any:
        return self.samples[index]


def _rebuild(samples: list[Any], batch_size: int | None, map_style: bool) -> Any:
    if map_style:
        return SampleList(samples)
    stacked = tree.map_structure(lambda *xs: np.stack(xs), *samples)
    if _batches.tensorflow_available():
        from lamina.utils._tf_data import samples_to_tf_dataset

        return samples_to_tf_dataset(stacked, batch_size)
    leaves = tree.flatten(stacked)
    specs: list[PartSpec] = [(tuple(x.shape[1:]), str(x.dtype)) for x in leaves]

    def load(i: int) -> tuple[Any, ...]:
        return tuple(x[i] for x in leaves)

    structure = samples[0]
    batches = _StructuredBatches(len(samples), load, specs, batch_size, structure)
    return batches


class _StructuredBatches(SampleBatches):
    """`SampleBatches` that give each item back in the structure of the samples."""

    def __init__(self, count: int, load: Any, specs: Any, batch_size: Any, structure: Any):
        super().__init__(count, load, specs, batch_size)
        self.structure = structure

    def batch_at(self, order: np.ndarray[Any, Any], index: int) -> Any:
        parts = super().batch_at(order, index)
        flat = list(parts) if len(self.specs) > 1 else [parts]
        return tree.pack_sequence_as(self.structure, flat)


def split_dataset(
    dataset: Any,
    left_size: int | float | None = None,
    right_size: int | float | None = None,
    shuffle: bool = False,
    seed: int | None = None,
    preferred_backend: str | None = None,
) -> tuple[Any, Any]:
    """Split a dataset into a left part and a right part (e.g. train and test).

    Args:
        dataset: a `tf.data.Dataset`, a map-style dataset (a torch `Dataset`), a NumPy
            array, or a list/tuple/dict of arrays of one length.
        left_size: a fraction in (0, 1) or a number of samples for the left part; default
            the complement of `right_size`.
        right_size: the same for the right part; default the complement of `left_size`.
        shuffle: shuffle the samples before splitting.
        seed: the shuffling seed.
        preferred_backend: ``"torch"`` gives map-style datasets a torch `DataLoader`
            takes; anything else gives `tf.data.Dataset`s when TensorFlow is installed,
            else `lamina.utils.PyDataset`s. Default: "torch" for a map-style dataset.

    Returns:
        ``(left, right)``; a batched `tf.data.Dataset` gives batched parts.

    Example:
        >>> left, right = lamina.utils.split_dataset(np.arange(10), left_size=0.8)
        >>> len(list(left)), len(list(right))
        (8, 2)
    """
    samples, batch_size, from_tf = _samples(dataset)
    map_style = preferred_backend == "torch" or (
        preferred_backend is None
        and not from_tf
        and not isinstance(dataset, (np.ndarray, list, tuple, dict))
    )
    if shuffle:
        if seed is None:
            seed = random.randint(0, 1_000_000)
        random.Random(seed).shuffle(samples)
    left, right = _split_sizes(left_size, right_size, len(samples))
    return (
        _rebuild(samples[:left], batch_size, map_style),
        _rebuild(samples[len(samples) - right :], batch_size, map_style),
    )


def get_source_inputs(tensor: Any) -> list[Any]:
    """The `Input` tensors a symbolic tensor was computed from.

    Args:
        tensor: a symbolic tensor.

    Returns:
        The list of input tensors it depends on (``[tensor]`` for an input itself).

    Example:
        >>> x = lamina.Input((3,))
        >>> y = lamina.layers.Dense(2)(x)
        >>> lamina.utils.get_source_inputs(y)[0] is x
        True
    """
    history = getattr(tensor, "history", None)
    if history is None or history.node.is_input:
        return [tensor]
    found: list[Any] = []
    for parent in history.node.input_tensors:
        for source in get_source_inputs(parent):
            if not any(source is seen for seen in found):
                found.append(source)
    return found
