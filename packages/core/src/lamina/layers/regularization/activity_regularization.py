"""`ActivityRegularization`: add an L1/L2 penalty on the activations passing through."""

from __future__ import annotations

import numbers
from typing import Any

from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor


class ActivityRegularization(Layer):
    """Pass the inputs through unchanged, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` to the
    layer's `losses` on every call.

    Args:
        l1: the L1 factor (>= 0).
        l2: the L2 factor (>= 0).
        **kwargs: base `Layer` arguments.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        for arg, value in (("l1", l1), ("l2", l2)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
                raise ValueError(
                    f"ActivityRegularization: argument `{arg}` must be a non-negative number. "
                    f"Received: {arg}={value!r}"
                )
        kwargs.pop("activity_regularizer", None)
        from lamina import regularizers

        super().__init__(
            activity_regularizer=regularizers.L1L2(l1=float(l1), l2=float(l2)), **kwargs
        )
        self.l1 = float(l1)
        self.l2 = float(l2)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return SymbolicTensor(inputs.shape, dtype=inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config
