"""`Dense`: ``activation(inputs @ kernel + bias)`` on the last axis of inputs of any rank."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.core.lora import LoraLayer
from lamina.layers.input_spec import InputSpec


class Dense(LoraLayer):
    """A fully connected layer: ``activation(dot(inputs, kernel) + bias)``.

    Inputs of rank > 2 are contracted on their last axis only, so ``(batch, steps, d)``
    becomes ``(batch, steps, units)`` with the same kernel at every step.

    Args:
        units: the size of the last output axis.
        activation: an activation name or callable (default: none).
        use_bias: whether to add a bias vector.
        kernel_initializer: initializer of the ``(input_dim, units)`` kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: penalty on the kernel, added to `losses`.
        bias_regularizer: penalty on the bias.
        activity_regularizer: penalty on the outputs.
        kernel_constraint: projection applied to the kernel after each update.
        bias_constraint: projection applied to the bias after each update.
        lora_rank: when set, LoRA is enabled at build time with this rank.
        lora_alpha: LoRA scale numerator (the update is scaled by ``lora_alpha / rank``).
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Example:
        >>> y = lamina.layers.Dense(4, activation="relu")(np.ones((2, 3)))
    """

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = _args.positive_int("Dense", "units", units)
        self.activation = _args.get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _args.get_initializer(kernel_initializer)
        self.bias_initializer = _args.get_initializer(bias_initializer)
        self.kernel_regularizer = _args.get_regularizer(kernel_regularizer)
        self.bias_regularizer = _args.get_regularizer(bias_regularizer)
        self.kernel_constraint = _args.get_constraint(kernel_constraint)
        self.bias_constraint = _args.get_constraint(bias_constraint)
        self._init_lora(lora_rank, lora_alpha)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape: Any = None) -> None:
        input_dim = input_shape[-1] if input_shape else None
        if input_dim is None:
            raise ValueError(
                f"Dense: the last axis of the inputs must be known to build the kernel. "
                f"Received: input_shape={input_shape}"
            )
        self._kernel = self.add_weight(
            shape=(int(input_dim), self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.bias = (
            self.add_weight(
                shape=(self.units,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
            if self.use_bias
            else None
        )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: int(input_dim)})
        self.built = True
        self._build_lora()

    @property
    def kernel(self) -> Any:
        """The kernel in use: the variable, plus the scaled LoRA product once enabled."""
        if not self.built:
            raise AttributeError(f"Dense layer {self.name!r} is not built: it has no kernel.")
        return self._effective_weight() if self.lora_enabled else self._kernel

    def call(self, inputs: Any) -> Any:
        outputs = ops.matmul(inputs, self._effective_weight())
        if self.bias is not None:
            outputs = ops.add(outputs, self.bias.value)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "activation": _args.serialize_activation(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": _args.serialize_initializer(self.kernel_initializer),
                "bias_initializer": _args.serialize_initializer(self.bias_initializer),
                "kernel_regularizer": _args.serialize_regularizer(self.kernel_regularizer),
                "bias_regularizer": _args.serialize_regularizer(self.bias_regularizer),
                "activity_regularizer": _args.serialize_regularizer(self.activity_regularizer),
                "kernel_constraint": _args.serialize_constraint(self.kernel_constraint),
                "bias_constraint": _args.serialize_constraint(self.bias_constraint),
            }
        )
        config.update(self._lora_config())
        return config
