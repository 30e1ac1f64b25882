"""`UnitNormalization`: scale each sample to unit L2 norm over some axes."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.normalization import _common

# Lower bound on the squared norm, so all-zero inputs stay zero instead of becoming NaN.
_MIN_SQUARED_NORM = 1e-12


class UnitNormalization(Layer):
    """Divide each sample by its L2 norm over `axis` (no weights).

    Args:
        axis: the axis or list of axes the norm runs over.
        **kwargs: base `Layer` arguments (name, dtype).

    Example:
        >>> lamina.layers.UnitNormalization()(np.array([[3.0, 4.0]]))  # [[0.6, 0.8]]
    """

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = _common.int_axes("UnitNormalization", axis)
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        self._axes = _common.canonical_axes("UnitNormalization", self.axis, len(input_shape))
        self.built = True

    def call(self, inputs: Any) -> Any:
        dtype = _common.stats_dtype(inputs)
        x = ops.cast(inputs, dtype)
        squared = ops.sum(ops.square(x), axis=self._axes, keepdims=True)
        outputs = x * ops.rsqrt(ops.maximum(squared, _MIN_SQUARED_NORM))
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["axis"] = self.axis
        return config
