"""Batches from a `tf.data.Dataset`, read as NumPy (TensorFlow is imported only here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import standardize_batch


class TFDatasetAdapter(DataAdapter):
    """Iterates a batched `tf.data.Dataset`; each pass starts the dataset again.

    Args:
        dataset: a dataset whose elements are batches (`x`, `(x, y)` or
            `(x, y, sample_weight)`).
    """

    def __init__(self, dataset: Any) -> None:
        import tensorflow as tf

        if not isinstance(dataset, tf.data.Dataset):
            raise TypeError(
                "Argument `x` must be a `tf.data.Dataset` for this adapter. "
                f"Received: x of type {type(dataset).__name__}"
            )
        from lamina.distribution import distribution

        current = distribution()
        if current is not None:  # each process of a job reads its part of each batch
            dataset = current.distribute_dataset(dataset)
        self._dataset = dataset
        cardinality = int(dataset.cardinality().numpy())
        # tf.data.INFINITE_CARDINALITY (-1) and UNKNOWN_CARDINALITY (-2): no count.
        self._num_batches = cardinality if cardinality >= 0 else None

    @property
    def num_batches(self) -> int | None:
        return self._num_batches

    def get_numpy_iterator(self) -> Iterator[tuple[Any, ...]]:
        for batch in self._dataset.as_numpy_iterator():
            yield standardize_batch(_writable(batch))


def shard_dataset(dataset: Any, num_processes: int, process_id: int) -> Any:
    """Process `process_id`'s rows of each batch of `dataset`: its slice of every global
    batch, in order (each batch is cut into `num_processes` equal parts).

    Raises:
        ValueError: the batch size does not divide by `num_processes`, or the dataset is
            empty.
    """
    import tensorflow as tf

    spec = tf.nest.flatten(dataset.element_spec)[0]
    batch = spec.shape[0] if spec.shape.rank else None
    if batch is None:  # not static (`batch()` without drop_remainder): read the first
        first = next(iter(dataset.take(1)), None)
        if first is None:
            raise ValueError("Cannot split an empty dataset between processes.")
        batch = int(tf.nest.flatten(first)[0].shape[0])
    if batch % num_processes:
        raise ValueError(
            f"The dataset's batch size {batch} does not divide between {num_processes} "
            "processes: batch it by a multiple of the number of processes."
        )
    return dataset.rebatch(batch // num_processes).shard(num_processes, process_id)


def _writable(batch: Any) -> Any:
    """tf.data hands out read-only NumPy views; torch warns on wrapping those, so copy."""
    from lamina import tree

    def copy(value: Any) -> Any:
        flags = getattr(value, "flags", None)
        return value.copy() if flags is not None and not flags.writeable else value

    return tree.map_structure(copy, batch)
