"""`Normalization`: standardize features with a mean and variance given or learned by
`adapt` from data."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from lamina import config as lamina_config
from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin


def _axis_tuple(axis: Any) -> tuple[int, ...]:
    if axis is None:
        return ()
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axis
    ):
        return tuple(int(a) for a in axis)
    raise ValueError(
        f"Normalization: argument `axis` must be an int, a tuple of ints or None. "
        f"Received: axis={axis!r}"
    )


def _as_numpy(batch: Any) -> np.ndarray[Any, Any]:
    if isinstance(batch, np.ndarray):
        return batch
    if hasattr(batch, "shape") and hasattr(batch, "dtype"):
        return np.asarray(ops.convert_to_numpy(batch))
    return np.asarray(batch)


def _batches(
    data: Any, batch_size: int | None, steps: int | None
) -> Iterator[np.ndarray[Any, Any]]:
    """The data as NumPy batches: one array (split by `batch_size`) or an iterable of them."""
    if isinstance(data, np.ndarray) or (
        hasattr(data, "shape") and hasattr(data, "dtype") and not hasattr(data, "element_spec")
    ):
        array = _as_numpy(data)
        size = batch_size or max(len(array), 1)
        chunks: Iterable[Any] = (array[i : i + size] for i in range(0, max(len(array), 1), size))
    elif hasattr(data, "as_numpy_iterator"):
        chunks = data.as_numpy_iterator()
    elif (
        isinstance(data, (list, tuple))
        and data
        and all(isinstance(x, numbers.Number) for x in data)
    ):
        chunks = iter([np.asarray(data)])
    elif isinstance(data, Iterable):
        chunks = iter(data)
    else:
        raise ValueError(
            "Normalization.adapt: argument `data` must be an array, a tensor, a tf.data "
            f"Dataset or an iterable of batches. Received: data of type {type(data).__name__}"
        )
    for step, chunk in enumerate(chunks):
        if steps is not None and step >= steps:
            return
        yield _as_numpy(chunk)


class Normalization(TFGraphCallMixin, Layer):
    """Compute ``(inputs - mean) / sqrt(variance)`` per feature (or the inverse).

    The statistics are kept per index of the `axis` axes and shared over the others;
    pass them directly, or call `adapt(data)` before training to compute them.

    Args:
        axis: the axis or axes with separate statistics (default -1: one per feature);
            None for a single mean and variance over everything.
        mean: the mean, broadcastable to the kept axes' shape (with `variance`).
        variance: the variance, likewise.
        invert: compute ``mean + inputs * sqrt(variance)`` instead (undo a normalization).
        **kwargs: base `Layer` arguments.

    Example:
        >>> norm = lamina.layers.Normalization()
        >>> norm.adapt(np.array([[1.0], [2.0], [3.0]]))
        >>> norm(np.array([[2.0]]))  # 0.0
    """

    def __init__(
        self,
        axis: Any = -1,
        mean: Any = None,
        variance: Any = None,
        invert: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.axis = _axis_tuple(axis)
        if (mean is None) != (variance is None):
            raise ValueError(
                "Normalization: arguments `mean` and `variance` must be given together or "
                f"not at all. Received: mean={mean!r}, variance={variance!r}"
            )
        self.input_mean = None if mean is None else np.asarray(mean, dtype="float64")
        self.input_variance = None if variance is None else np.asarray(variance, dtype="float64")
        if self.input_variance is not None and np.any(self.input_variance < 0):
            raise ValueError(
                f"Normalization: argument `variance` must be non-negative. Received: "
                f"variance={variance!r}"
            )
        self.invert = bool(invert)
        self.supports_masking = True
        self._broadcast_shape: tuple[int, ...] | None = None
        self._keep_axis: tuple[int, ...] = ()
        self._build_input_shape: tuple[Any, ...] | None = None
        self.is_adapted = self.input_mean is not None

    def build(self, input_shape: Any = None) -> None:
        if input_shape is None:
            raise ValueError(
                "Normalization.build: argument `input_shape` is required. Received: None"
            )
        shape = tuple(input_shape)
        ndim = len(shape)
        if any(not -ndim <= a < ndim for a in self.axis):
            raise ValueError(
                f"Normalization: argument `axis` must be within the inputs' rank {ndim}. "
                f"Received: axis={self.axis}, input_shape={shape}"
            )
        keep = tuple(sorted(a % ndim for a in self.axis))
        for a in keep:
            if shape[a] is None:
                raise ValueError(
                    f"Normalization: axis {a} keeps separate statistics, so its size must be "
                    f"known. Received: input_shape={shape}"
                )
        self._keep_axis = keep
        self._build_input_shape = shape
        self._broadcast_shape = tuple(int(shape[d]) if d in keep else 1 for d in range(ndim))
        stats_shape = tuple(int(shape[d]) for d in keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                shape=stats_shape, initializer="zeros", trainable=False, name="mean"
            )
            self.adapt_variance = self.add_weight(
                shape=stats_shape, initializer="ones", trainable=False, name="variance"
            )
        else:
            given = (("mean", self.input_mean), ("variance", self.input_variance))
            for arg, value in given:
                assert value is not None
                try:
                    np.broadcast_to(value, self._broadcast_shape)
                except ValueError:
                    raise ValueError(
                        f"Normalization: argument `{arg}` of shape {np.shape(value)} cannot "
                        f"broadcast to the statistics' shape {self._broadcast_shape} for "
                        f"inputs of shape {shape} and axis={self.axis}."
                    ) from None
        self.built = True

    def _stats(self) -> tuple[Any, Any]:
        """Mean and variance, shaped to broadcast against the inputs."""
        dtype = self.compute_dtype
        shape = self._broadcast_shape or ()
        if self.input_mean is not None and self.input_variance is not None:
            mean = np.broadcast_to(self.input_mean, shape)
            variance = np.broadcast_to(self.input_variance, shape)
            return (
                ops.convert_to_tensor(mean.astype(dtype), dtype=dtype),
                ops.convert_to_tensor(variance.astype(dtype), dtype=dtype),
            )
        mean = ops.reshape(ops.cast(self.adapt_mean.value, dtype), shape)
        variance = ops.reshape(ops.cast(self.adapt_variance.value, dtype), shape)
        return mean, variance

    @property
    def mean(self) -> Any:
        """The mean, broadcastable against the inputs (after build)."""
        return self._stats()[0]

    @property
    def variance(self) -> Any:
        """The variance, broadcastable against the inputs (after build)."""
        return self._stats()[1]

    def call(self, inputs: Any) -> Any:
        x = ops.cast(inputs, self.compute_dtype)
        mean, variance = self._stats()
        std = ops.maximum(ops.sqrt(variance), lamina_config.epsilon())
        if self.invert:
            return ops.add(mean, ops.multiply(x, std))
        return ops.divide(ops.subtract(x, mean), std)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Set the mean and variance from `data` (streamed: batches are combined exactly).

        Args:
            data: a NumPy array or tensor, a tf.data Dataset, or an iterable of batches.
            batch_size: chunk size when `data` is one array (does not change the result).
            steps: the number of batches to read (default: all).

        Raises:
            ValueError: the layer was given `mean`/`variance`, there is no data, or the
                batches' kept axes disagree with the layer's.
        """
        if self.input_mean is not None:
            raise ValueError(
                "Normalization.adapt: this layer was created with fixed `mean` and "
                "`variance`; create it without them to learn them from data."
            )
        count = 0
        mean: np.ndarray[Any, Any] | None = None
        m2: np.ndarray[Any, Any] | None = None
        for batch in _batches(data, batch_size, steps):
            batch = batch.astype("float64")
            if not self.built:
                shape = [
                    None if (d == 0 and 0 not in self._kept(batch.ndim)) else s
                    for d, s in enumerate(batch.shape)
                ]
                self._build(tuple(shape))
            self._check_batch(batch)
            keep = self._keep_axis
            reduce = tuple(d for d in range(batch.ndim) if d not in keep)
            n = int(np.prod([batch.shape[d] for d in reduce])) if reduce else 1
            if n == 0:
                continue
            b_mean = batch.mean(axis=reduce) if reduce else batch
            b_m2 = (
                ((batch - batch.mean(axis=reduce, keepdims=True)) ** 2).sum(axis=reduce)
                if reduce
                else np.zeros_like(batch)
            )
            if mean is None or m2 is None:
                count, mean, m2 = n, b_mean, b_m2
                continue
            total = count + n
            delta = b_mean - mean
            mean = mean + delta * (n / total)
            m2 = m2 + b_m2 + delta**2 * (count * n / total)
            count = total
        if mean is None or m2 is None:
            raise ValueError("Normalization.adapt: argument `data` holds no samples.")
        self.adapt_mean.assign(mean.astype(self.adapt_mean.dtype))
        self.adapt_variance.assign((m2 / count).astype(self.adapt_variance.dtype))
        self.is_adapted = True

    def _kept(self, ndim: int) -> tuple[int, ...]:
        return tuple(a % ndim for a in self.axis if -ndim <= a < ndim)

    def _check_batch(self, batch: np.ndarray[Any, Any]) -> None:
        built = self._build_input_shape or ()
        if batch.ndim != len(built) or any(batch.shape[d] != built[d] for d in self._keep_axis):
            raise ValueError(
                f"Normalization.adapt: data batches must have shape compatible with "
                f"{built} on the kept axes {self._keep_axis}. Received: a batch of shape "
                f"{batch.shape}"
            )

    def _axis_config(self) -> Any:
        if not self.axis:
            return None
        return self.axis[0] if len(self.axis) == 1 else list(self.axis)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "axis": self._axis_config(),
                "invert": self.invert,
                "mean": None if self.input_mean is None else self.input_mean.tolist(),
                "variance": None if self.input_variance is None else self.input_variance.tolist(),
            }
        )
        return config
