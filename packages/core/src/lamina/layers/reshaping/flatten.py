"""`Flatten`: collapse every axis but the batch axis into one."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor


class Flatten(Layer):
    """Reshape ``(batch, d1, d2, ...)`` to ``(batch, d1 * d2 * ...)``.

    Args:
        data_format: ``"channels_first"`` moves the channel axis last before flattening,
            so a model's flattened features keep the channels-last order; default: the
            global image data format.
        **kwargs: base `Layer` arguments.

    Example:
        >>> tuple(lamina.layers.Flatten()(np.zeros((2, 3, 4))).shape)
        (2, 12)
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = _args.data_format("Flatten", data_format)
        self.built = True

    def call(self, inputs: Any) -> Any:
        shape = tuple(inputs.shape)
        if self.data_format == "channels_first" and len(shape) > 2:
            inputs = ops.transpose(inputs, (0, *range(2, len(shape)), 1))
        features = self.compute_output_shape(shape)[1]
        if features is not None:
            return ops.reshape(inputs, (-1, features))
        return ops.reshape(inputs, (ops.shape(inputs)[0], -1))

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        if not shape:
            raise ValueError(
                "Flatten: inputs must have a batch axis. Received: input_shape=()"
            )
        rest = shape[1:]
        features = None if any(d is None for d in rest) else math.prod(rest)
        return (shape[0], features)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return SymbolicTensor(self.compute_output_shape(inputs.shape), dtype=inputs.dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["data_format"] = self.data_format
        return config
