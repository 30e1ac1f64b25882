"""`RMSNormalization`: divide by the root mean square over some axes, then scale."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.normalization import _common


class RMSNormalization(Layer):
    """``x / sqrt(mean(x ** 2, axis) + epsilon) * scale`` with a learned `scale`.

    Cheaper than `LayerNormalization` (no mean is subtracted, no offset is learned); the
    normalization of many transformer models.

    Args:
        axis: the axis or list of axes to normalize over (and to size `scale` by).
        epsilon: added to the mean square before the square root.
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Example:
        >>> y = lamina.layers.RMSNormalization()(np.ones((2, 3)))
    """

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = _common.int_axes("RMSNormalization", axis)
        self.epsilon = _common.non_negative_float("RMSNormalization", "epsilon", epsilon)
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        axes = _common.canonical_axes("RMSNormalization", self.axis, len(input_shape))
        shape = tuple(_common.known_dims("RMSNormalization", input_shape, axes))
        self._axes = axes
        self.scale = self.add_weight(
            shape=shape, initializer="ones", name="scale", autocast=False
        )
        self.built = True

    def call(self, inputs: Any) -> Any:
        dtype = _common.stats_dtype(inputs)
        x = ops.cast(inputs, dtype)
        mean_square = ops.mean(ops.square(x), axis=self._axes, keepdims=True)
        scale = _common.broadcast_param(self.scale.value, len(x.shape), self._axes, dtype)
        outputs = x * ops.rsqrt(mean_square + self.epsilon) * scale
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon})
        return config
