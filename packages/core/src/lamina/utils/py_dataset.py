"""`PyDataset`: a Python-side dataset of batches addressed by index."""

from __future__ import annotations

from typing import Any


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(
            f"Argument `{name}` must be an int >= {minimum}. Received: {name}={value!r}"
        )
    return value


class PyDataset:
    """Base class for datasets that produce whole batches on request.

    Subclass it and define ``__getitem__(index)`` returning batch number `index` (as `x`,
    `(x, y)` or `(x, y, sample_weight)`) and ``__len__()`` returning the number of batches.
    Leave out ``__len__`` (or override `num_batches` to return None) for an infinite
    dataset; `fit` then needs `steps_per_epoch`. Because a batch is found by its index,
    batches can be computed in parallel while keeping their order, and shuffling only
    permutes indices.

    Args:
        workers: threads (or processes) that compute batches ahead of time; 0 or 1 compute
            them one by one in the training loop.
        use_multiprocessing: use processes instead of threads when ``workers > 1`` (the
            dataset must then be picklable; each pass pickles it anew, so state changed
            in `on_epoch_end` reaches the workers).
        max_queue_size: at most this many batches are computed ahead of the one in use.

    Example:
        ```python
        class Squares(lamina.utils.PyDataset):
            def __init__(self, n, **kwargs):
                super().__init__(**kwargs)
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                x = np.full((4, 1), i, "float32")
                return x, x**2
        ```
    """

    def __init__(
        self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10
    ) -> None:
        self.workers = workers
        self.use_multiprocessing = use_multiprocessing
        self.max_queue_size = max_queue_size

    # Subclasses that forget `super().__init__()` still get the defaults.
    @property
    def workers(self) -> int:
        """Parallel workers computing batches (0 or 1: none)."""
        return int(self.__dict__.get("_workers", 1))

    @workers.setter
    def workers(self, value: int) -> None:
        self._workers = _check_count("workers", value, 0)

    @property
    def use_multiprocessing(self) -> bool:
        """Whether the workers are processes rather than threads."""
        return bool(self.__dict__.get("_use_multiprocessing", False))

    @use_multiprocessing.setter
    def use_multiprocessing(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(
                "Argument `use_multiprocessing` must be a bool. "
                f"Received: use_multiprocessing={value!r}"
            )
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        """How many batches may be computed ahead of the one being used."""
        return int(self.__dict__.get("_max_queue_size", 10))

    @max_queue_size.setter
    def max_queue_size(self, value: int) -> None:
        self._max_queue_size = _check_count("max_queue_size", value, 1)

    def __getitem__(self, index: int) -> Any:
        """Batch number `index`; every subclass must define it."""
        raise TypeError(
            f"{type(self).__name__} must define `__getitem__(index)` returning one batch "
            "(PyDataset subclasses produce their batches there)."
        )

    @property
    def num_batches(self) -> int | None:
        """Batches per epoch: ``len(self)``, or None (infinite) when ``__len__`` is absent."""
        length = getattr(self, "__len__", None)
        if length is None:
            return None
        return int(length())

    def on_epoch_begin(self) -> None:
        """Called before each pass over the dataset."""

    def on_epoch_end(self) -> None:
        """Called after each full pass (e.g. to reshuffle the samples behind the indices)."""
