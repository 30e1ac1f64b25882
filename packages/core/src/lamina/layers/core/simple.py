"""Stateless core layers: `Activation`, `Identity` and `Masking`."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor


class Activation(Layer):
    """Apply an activation function to the inputs (masks pass through).

    Args:
        activation: an activation name (``"relu"``) or a callable.
        **kwargs: base `Layer` arguments.

    Example:
        >>> y = lamina.layers.Activation("relu")(np.array([-1.0, 2.0]))
    """

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if activation is None:
            raise ValueError(
                "Activation: argument `activation` must be an activation name or a callable. "
                "Received: activation=None"
            )
        self.activation = _args.get_activation(activation)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs if self.activation is None else self.activation(inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["activation"] = _args.serialize_activation(self.activation)
        return config


class Identity(Layer):
    """Return the inputs unchanged (a placeholder that keeps a model's structure).

    Args:
        **kwargs: base `Layer` arguments.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        from lamina import tree

        return tree.map_structure(lambda t: SymbolicTensor(t.shape, dtype=t.dtype), inputs)


class Masking(Layer):
    """Mask the timesteps whose features all equal `mask_value`.

    The output is the input with those timesteps zeroed, and carries a mask
    ``any(inputs != mask_value, axis=-1)`` that later layers (RNNs, losses) honour.

    Args:
        mask_value: the padding value.
        **kwargs: base `Layer` arguments.

    Example:
        >>> masked = lamina.layers.Masking(0.0)(np.array([[[1.0], [0.0]]]))
    """

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(mask_value, bool) or not isinstance(mask_value, numbers.Real):
            raise ValueError(
                "Masking: argument `mask_value` must be a number. "
                f"Received: mask_value={mask_value!r}"
            )
        self.mask_value: float = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return ops.any(ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = ops.any(ops.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return ops.multiply(inputs, ops.cast(keep, dtypes.dtype_of(inputs)))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config
