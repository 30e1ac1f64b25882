"""`Discretization`: bucket continuous values by boundaries, given or learned by `adapt`."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import batches
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.category_encoding import encode_categories, encoded_shape
from lamina.ops.symbolic import SymbolicTensor

_MODES = ("int", "one_hot", "multi_hot", "count")


def _sketch(values: np.ndarray[Any, Any], epsilon: float) -> np.ndarray[Any, Any]:
    """A weighted sample of sorted `values`: about ``1 / epsilon`` points, each weighing
    the number of values it stands for (row 0: points, row 1: weights)."""
    ordered = np.sort(values.reshape(-1).astype("float32"))
    stride = int(max(ordered.size * epsilon, 1.0))
    points = ordered[stride - 1 :: stride]
    return np.stack([points, np.full(points.shape, float(stride), "float32")])


def _shrink(sketch: np.ndarray[Any, Any], fraction: float) -> np.ndarray[Any, Any]:
    """Resample a sketch at every `fraction` of its cumulative weight (a no-op when it
    already has fewer than ``1 / fraction`` points)."""
    if sketch.shape[1] * fraction < 1:
        return sketch
    cumulative = np.cumsum(sketch[1])
    targets = np.arange(0.0, 1.0, fraction) + fraction
    levels = cumulative / cumulative[-1]
    points = np.interp(targets, levels, sketch[0])
    reached = np.interp(targets, levels, cumulative)
    weights = np.diff(reached, prepend=0.0)
    return np.stack([points, weights]).astype("float32")


def _combine(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], eps: float) -> Any:
    both = np.concatenate([a, b], axis=1)
    return _shrink(both[:, np.argsort(both[0], kind="stable")], eps)


class Discretization(TFGraphCallMixin, Layer):
    """Map each value to the index of its bucket: ``i`` where
    ``bin_boundaries[i-1] <= x < bin_boundaries[i]``.

    Args:
        bin_boundaries: sorted boundaries (``n`` boundaries make ``n + 1`` buckets).
        num_bins: how many buckets `adapt` should make from the data's quantiles
            (give this or `bin_boundaries`, not both).
        epsilon: the quantile sketch's approximation error (smaller is more exact).
        output_mode: ``"int"`` (bucket ids, int32), ``"one_hot"``, ``"multi_hot"`` or
            ``"count"``.
        sparse: sparse outputs; only ``False`` is supported.
        **kwargs: base `Layer` arguments (`name`, `dtype`).

    Example:
        >>> layer = lamina.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
        >>> layer(np.array([[-1.5, 1.0, 3.4, 0.5]]))  # [[0, 2, 3, 1]]
    """

    def __init__(
        self,
        bin_boundaries: Any = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if output_mode not in _MODES:
            raise ValueError(
                f"Discretization: argument `output_mode` must be one of {_MODES}. "
                f"Received: output_mode={output_mode!r}"
            )
        if sparse:
            raise ValueError(
                "Discretization: argument `sparse` must be False (no sparse outputs). "
                f"Received: sparse={sparse!r}"
            )
        if num_bins is not None and (isinstance(num_bins, bool) or num_bins < 0):
            raise ValueError(
                "Discretization: argument `num_bins` must be an integer >= 0. "
                f"Received: num_bins={num_bins!r}"
            )
        if (num_bins is None) == (bin_boundaries is None):
            raise ValueError(
                "Discretization: give exactly one of `num_bins` and `bin_boundaries`. "
                f"Received: num_bins={num_bins!r}, bin_boundaries={bin_boundaries!r}"
            )
        self.bin_boundaries = (
            None
            if bin_boundaries is None
            else [float(b) for b in np.asarray(bin_boundaries, "float64").reshape(-1)]
        )
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = False
        self._sketch: np.ndarray[Any, Any] = np.zeros((2, 0), "float32")
        self.built = True

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Learn `num_bins - 1` boundaries at the data's approximate quantiles.

        Args:
            data: an array, tensor, list, tf.data Dataset or iterable of batches.
            steps: how many batches to read (default: all).

        Raises:
            ValueError: the layer was made with `bin_boundaries`, or `data` is empty.
        """
        if self.num_bins is None:
            raise ValueError(
                "Discretization.adapt: this layer was made with `bin_boundaries`; make it "
                "with `num_bins` to learn boundaries from data."
            )
        self.reset_state()
        for batch in batches("Discretization", data, steps):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        """Fold one batch into the quantile sketch."""
        values = np.asarray(data, dtype="float32")
        if values.size:
            self._sketch = _combine(self._sketch, _sketch(values, self.epsilon), self.epsilon)

    def finalize_state(self) -> None:
        """Set `bin_boundaries` from the sketch (after the `update_state` calls)."""
        if self.num_bins is None:
            return
        if self._sketch.shape[1] == 0:
            raise ValueError("Discretization.adapt: argument `data` holds no values.")
        self.bin_boundaries = [float(b) for b in _shrink(self._sketch, 1.0 / self.num_bins)[0, :-1]]

    def reset_state(self) -> None:
        """Forget what `update_state` has seen."""
        if self.num_bins is not None:
            self._sketch = np.zeros((2, 0), "float32")

    @property
    def _depth(self) -> int:
        if self.bin_boundaries is not None:
            return len(self.bin_boundaries) + 1
        return int(self.num_bins or 0)

    def call(self, inputs: Any) -> Any:
        if self.bin_boundaries is None:
            raise ValueError(
                "Discretization: pass `bin_boundaries` or call `adapt(data)` before "
                "calling the layer."
            )
        x = ops.cast(inputs, "float32")
        ids = ops.digitize(x, self.bin_boundaries)
        if self.output_mode == "int":
            return ops.cast(ids, "int32")
        return encode_categories(ids, self.output_mode, self._depth, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return tuple(input_shape)
        return encoded_shape(input_shape, self.output_mode, self._depth)

    def compute_output_spec(self, inputs: Any) -> Any:
        dtype = "int32" if self.output_mode == "int" else self.compute_dtype
        return SymbolicTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins,
                "epsilon": self.epsilon,
                "output_mode": self.output_mode,
                "sparse": False,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """An adapted layer's config has both `num_bins` and the learned boundaries."""
        config = dict(config)
        learned = None
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            learned = config.pop("bin_boundaries")
        layer = cls(**config)
        if learned is not None:
            layer.bin_boundaries = [float(b) for b in learned]
        return layer
