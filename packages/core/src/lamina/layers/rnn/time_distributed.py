"""`TimeDistributed`: apply one layer to every step of a sequence, with shared weights."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.input_spec import InputSpec
from lamina.layers.rnn.wrapper import Wrapper
from lamina.ops import dtypes


class TimeDistributed(Wrapper):
    """Apply `layer` to each step of ``(batch, steps, ...)`` inputs independently.

    The steps are folded into the batch for one call of the inner layer (so layers whose
    output depends on the whole batch, such as `BatchNormalization` in training, see all
    steps together), then unfolded.

    Args:
        layer: the layer to apply at each step.
        **kwargs: base `Layer` arguments.

    Example:
        >>> y = lamina.layers.TimeDistributed(lamina.layers.Dense(4))(np.ones((2, 5, 3)))
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape: Any = None) -> None:
        shape = tuple(input_shape)
        if len(shape) < 3:
            raise ValueError(
                "TimeDistributed: the inputs must be at least 3D, (batch, steps, ...). "
                f"Received: input_shape={shape}"
            )
        if not self.layer.built:
            with self._name_scope():
                self.layer._build((None, *shape[2:]))
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        inner = tuple(self.layer.compute_output_shape((shape[0], *shape[2:])))
        return (inner[0], shape[1], *inner[1:])

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        shape = ops.shape(inputs)
        batch, steps = shape[0], shape[1]
        folded = ops.reshape(inputs, (-1, *tuple(inputs.shape[2:])))
        kwargs: dict[str, Any] = {}
        if self.layer._has_training:
            kwargs["training"] = training
        if mask is not None and self.layer._has_mask:
            kwargs["mask"] = ops.reshape(mask, (-1, *tuple(mask.shape[2:])))
        outputs = self.layer(folded, **kwargs)
        outputs = ops.reshape(outputs, (batch, steps, *tuple(outputs.shape[1:])))
        if dtypes.dtype_of(outputs) in dtypes.FLOATS:
            outputs = ops.cast(outputs, self.compute_dtype)
        return outputs

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask
