"""`EpochIterator`: batches for the training loops, grouped by `steps_per_execution`."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from lamina.trainers.data_adapters.array_data_adapter import ArrayDataAdapter, check_batch_size
from lamina.trainers.data_adapters.data_adapter import DataAdapter
from lamina.trainers.data_adapters.data_adapter_utils import (
    _check_class_weight,
    class_weight_to_sample_weights,
    is_tf_dataset,
    is_torch_dataloader,
    unpack_x_y_sample_weight,
)
from lamina.trainers.data_adapters.generator_data_adapter import (
    GeneratorDataAdapter,
    is_generator_like,
)
from lamina.trainers.data_adapters.process_part import this_process_part
from lamina.utils.py_dataset import PyDataset

RAN_OUT_MESSAGE = (
    "Your input ran out of data; interrupting the epoch after {steps} step(s). Make sure "
    "the data can produce at least `steps_per_epoch * epochs` batches (a Python generator "
    "cannot be restarted: loop inside it, or use arrays, a PyDataset or a dataset)."
)


def _check_positive_int(name: str, value: Any, allow_none: bool) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        expected = "a positive int or None" if allow_none else "a positive int"
        raise ValueError(f"Argument `{name}` must be {expected}. Received: {name}={value!r}")


def get_data_adapter(
    x: Any,
    y: Any = None,
    sample_weight: Any = None,
    batch_size: int | None = None,
    shuffle: bool | str = False,
    class_weight: dict[int, float] | None = None,
) -> DataAdapter:
    """The adapter that reads `x` (and `y`, `sample_weight` for array data).

    Args:
        x: arrays / tensors / nested lists or dicts of them, a `tf.data.Dataset`, a
            `torch.utils.data.DataLoader`, a Python generator or iterator, or a `PyDataset`.
        y: targets (array data only).
        sample_weight: per-sample weights (array data only).
        batch_size: samples per batch (array data only; the others batch themselves).
        shuffle: True, False or "batch" (arrays); True shuffles a `PyDataset`'s indices.
        class_weight: used here for arrays; `EpochIterator` applies it to other data.

    Returns:
        A `DataAdapter`.

    Raises:
        ValueError: `y` or `sample_weight` is given with data that yields its own targets,
            or the array data is inconsistent.
        TypeError: `x` is of an unsupported type.
    """
    if x is None:
        raise ValueError("Argument `x` must be given: the data to iterate. Received: x=None")
    check_batch_size(batch_size)
    kind = None
    if isinstance(x, PyDataset):
        kind = "a PyDataset"
    elif is_tf_dataset(x):
        kind = "a tf.data.Dataset"
    elif is_torch_dataloader(x):
        kind = "a torch DataLoader"
    elif is_generator_like(x):
        kind = "a generator or iterator"
    if kind is not None:
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                raise ValueError(
                    f"Argument `{name}` must not be given when `x` is {kind}: it must "
                    f"yield `(x, y)` or `(x, y, sample_weight)` batches itself. Received: "
                    f"{name} of type {type(value).__name__}"
                )
    if isinstance(x, PyDataset):
        from lamina.trainers.data_adapters.py_dataset_adapter import PyDatasetAdapter

        return this_process_part(PyDatasetAdapter(x, shuffle=shuffle), x)
    if is_tf_dataset(x):
        from lamina.trainers.data_adapters.tf_dataset_adapter import TFDatasetAdapter

        return TFDatasetAdapter(x)
    if is_torch_dataloader(x):
        from lamina.trainers.data_adapters.torch_data_loader_adapter import (
            TorchDataLoaderAdapter,
        )

        return this_process_part(TorchDataLoaderAdapter(x), x)
    if is_generator_like(x):
        return GeneratorDataAdapter(x)
    return ArrayDataAdapter(
        x,
        y=y,
        sample_weight=sample_weight,
        batch_size=batch_size,
        shuffle=shuffle,
        class_weight=class_weight,
    )


class EpochIterator:
    """Yields each epoch's batches, `steps_per_execution` at a time.

    Without `steps_per_epoch` an epoch is one pass over the data. With it, an epoch is
    exactly that many batches: the position carries over to the next epoch, and finite
    data that is exhausted is started again (a new, reshuffled pass). A one-shot source (a
    Python generator) that runs dry ends the epoch early with a warning and sets
    `ran_out_of_data`; the training loop should then stop.

    Args:
        x: the data (see `get_data_adapter`).
        y: targets, for array data.
        sample_weight: per-sample weights, for array data.
        batch_size: samples per batch, for array data (default 32).
        steps_per_epoch: batches per epoch, or None for one pass.
        shuffle: True, False or "batch".
        class_weight: ``{class: weight}`` converted to per-sample weights from `y`.
        steps_per_execution: batches handed over together in each step's list.

    Raises:
        ValueError: invalid counts, inconsistent data, or an infinite `PyDataset` without
            `steps_per_epoch`.
    """

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        steps_per_epoch: int | None = None,
        shuffle: bool | str = False,
        class_weight: dict[int, float] | None = None,
        steps_per_execution: int = 1,
    ) -> None:
        _check_positive_int("steps_per_epoch", steps_per_epoch, allow_none=True)
        _check_positive_int("steps_per_execution", steps_per_execution, allow_none=False)
        if class_weight is not None:
            _check_class_weight(class_weight)
        self.data_adapter = get_data_adapter(
            x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            shuffle=shuffle,
            class_weight=class_weight,
        )
        # Array data gets its class weights up front; other data batch by batch.
        self._class_weight = (
            None if isinstance(self.data_adapter, ArrayDataAdapter) else class_weight
        )
        self.steps_per_epoch = None if steps_per_epoch is None else int(steps_per_epoch)
        self.steps_per_execution = int(steps_per_execution)
        if (
            isinstance(x, PyDataset)
            and self.data_adapter.num_batches is None
            and self.steps_per_epoch is None
        ):
            raise ValueError(
                f"Argument `steps_per_epoch` is required for the infinite PyDataset "
                f"{type(x).__name__} (it defines no `__len__`). Received: steps_per_epoch=None"
            )
        self._current: Iterator[tuple[Any, ...]] | None = None
        self.ran_out_of_data = False

    @property
    def num_batches(self) -> int | None:
        """Batches per epoch: `steps_per_epoch`, else one pass's count (None if unknown)."""
        if self.steps_per_epoch is not None:
            return self.steps_per_epoch
        return self.data_adapter.num_batches

    def _finish(self, batch: tuple[Any, ...]) -> tuple[Any, ...]:
        if self._class_weight is None:
            return batch
        x, y, sw = unpack_x_y_sample_weight(batch)
        if y is None:
            raise ValueError(
                "Argument `class_weight` needs batches with targets `(x, y)`. "
                "Received: a batch without `y`"
            )
        if sw is not None:
            raise ValueError(
                "Arguments `class_weight` and per-batch sample weights cannot be used "
                "together. Received: batches of `(x, y, sample_weight)` with class_weight"
            )
        return (x, y, class_weight_to_sample_weights(y, self._class_weight))

    def _next(self, restart: bool) -> tuple[Any, ...] | None:
        """The next batch, starting a new pass when the current one ends (if `restart`)."""
        if self._current is None:
            self._current = self.data_adapter.get_numpy_iterator()
        batch = next(self._current, None)
        if batch is not None or not restart or not self.data_adapter.reiterable:
            if batch is None:
                self._current = None
            return batch
        self._current = self.data_adapter.get_numpy_iterator()
        batch = next(self._current, None)
        if batch is None:  # an empty pass: the data holds no batches at all
            self._current = None
        return batch

    def _ran_out(self, steps: int) -> None:
        self.ran_out_of_data = True
        warnings.warn(RAN_OUT_MESSAGE.format(steps=steps), UserWarning, stacklevel=3)

    def enumerate_epoch(self) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
        """Yield ``(step, batches)`` for one epoch.

        `batches` holds up to `steps_per_execution` batches (fewer at the end of the
        epoch); `step` is the index, within the epoch, of the last batch in the list.
        """
        if self.ran_out_of_data and not self.data_adapter.reiterable:
            return
        group: list[tuple[Any, ...]] = []
        step = -1
        limit = self.steps_per_epoch
        if limit is None:
            self._current = None  # an epoch is one fresh pass
        while limit is None or step + 1 < limit:
            batch = self._next(restart=limit is not None)
            if batch is None:
                if limit is not None or step == -1:
                    self._ran_out(step + 1)
                break
            step += 1
            group.append(self._finish(batch))
            if len(group) == self.steps_per_execution:
                yield step, group
                group = []
        if group:
            yield step, group
