"""Separable convolutions: a depthwise conv, then a 1x..x1 conv that mixes the channels."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.convolutional.base_conv import BaseConv
from lamina.layers.input_spec import InputSpec

__all__ = ["BaseSeparableConv", "SeparableConv1D", "SeparableConv2D"]


class BaseSeparableConv(BaseConv):
    """Shared logic of `SeparableConv1D`/`SeparableConv2D`: far fewer weights than a full
    conv of the same window, for nearly the same receptive field.

    Args:
        depth_multiplier: depthwise filters per input channel.
        filters: output channels of the pointwise step.
        kernel_size: as in `BaseConv` (padding ``"valid"`` or ``"same"``).
        strides: as in `BaseConv` (padding ``"valid"`` or ``"same"``).
        padding: as in `BaseConv` (padding ``"valid"`` or ``"same"``).
        data_format: as in `BaseConv` (padding ``"valid"`` or ``"same"``).
        dilation_rate: as in `BaseConv` (padding ``"valid"`` or ``"same"``).
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        depthwise_*: initializer, regularizer and constraint of each kernel.
        pointwise_*: initializer, regularizer and constraint of each kernel.
        bias_initializer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.
    """

    rank: int
    """The number of spatial dims; each public subclass fixes it."""

    _lora_target = "depthwise_kernel"

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        name = type(self).__name__
        multiplier = u.positive_int(name, "depth_multiplier", depth_multiplier)
        if isinstance(padding, str) and padding.lower() == "causal":
            raise ValueError(
                f"{name}: argument `padding` must be one of ('valid', 'same'). "
                f"Received: padding={padding!r}"
            )
        super().__init__(
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=depthwise_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=depthwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=depthwise_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.depth_multiplier = multiplier
        self.depthwise_initializer = self.kernel_initializer
        self.depthwise_regularizer = self.kernel_regularizer
        self.depthwise_constraint = self.kernel_constraint
        self.pointwise_initializer = u.get_initializer(pointwise_initializer)
        self.pointwise_regularizer = u.get_regularizer(pointwise_regularizer)
        self.pointwise_constraint = u.get_constraint(pointwise_constraint)

    def build(self, input_shape: Any = None) -> None:
        channels = self._input_channels(input_shape)
        axis = u.channel_axis(self.data_format) % (self.rank + 2)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        self._depthwise_kernel = self.add_weight(
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            name="depthwise_kernel",
        )
        self.pointwise_kernel = self.add_weight(
            shape=((1,) * self.rank + (channels * self.depth_multiplier, self.filters)),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
            name="pointwise_kernel",
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        self.built = True

    @property
    def depthwise_kernel(self) -> Any:
        """The depthwise kernel in use (plus the LoRA update once enabled)."""
        return self._effective_weight() if self.lora_enabled else self._depthwise_kernel

    def call(self, inputs: Any) -> Any:
        outputs = ops.separable_conv(
            inputs,
            self._effective_weight(),
            self.pointwise_kernel.value,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._add_bias_and_activate(outputs)

    def get_config(self) -> dict[str, Any]:
        config = self._base_config()
        config.update(
            {
                "depth_multiplier": self.depth_multiplier,
                "filters": self.filters,
                "depthwise_initializer": u.serialize("initializers", self.depthwise_initializer),
                "pointwise_initializer": u.serialize("initializers", self.pointwise_initializer),
                "depthwise_regularizer": u.serialize("regularizers", self.depthwise_regularizer),
                "pointwise_regularizer": u.serialize("regularizers", self.pointwise_regularizer),
                "depthwise_constraint": u.serialize("constraints", self.depthwise_constraint),
                "pointwise_constraint": u.serialize("constraints", self.pointwise_constraint),
            }
        )
        return config


class SeparableConv1D(BaseSeparableConv):
    """1D separable convolution (depthwise over time, then pointwise over channels).

    Args:
        filters: output channels.
        kernel_size: int or tuple of 1 int.
        strides: int or tuple of 1 int.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 1 int.
        depth_multiplier: depthwise filters per input channel.
        activation: as in `BaseSeparableConv`.
        use_bias: as in `BaseSeparableConv`.
        depthwise_initializer: as in `BaseSeparableConv`.
        pointwise_initializer: as in `BaseSeparableConv`.
        bias_initializer: as in `BaseSeparableConv`.
        depthwise_regularizer: as in `BaseSeparableConv`.
        pointwise_regularizer: as in `BaseSeparableConv`.
        bias_regularizer: as in `BaseSeparableConv`.
        activity_regularizer: as in `BaseSeparableConv`.
        depthwise_constraint: as in `BaseSeparableConv`.
        pointwise_constraint: as in `BaseSeparableConv`.
        bias_constraint: as in `BaseSeparableConv`.

    Example:
        >>> SeparableConv1D(8, 3)(np.ones((2, 10, 4))).shape  # (2, 8, 8)
    """

    rank = 1


class SeparableConv2D(BaseSeparableConv):
    """2D separable convolution (depthwise over space, then pointwise over channels).

    Args:
        filters: output channels.
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 2 ints.
        depth_multiplier: depthwise filters per input channel.
        activation: as in `BaseSeparableConv`.
        use_bias: as in `BaseSeparableConv`.
        depthwise_initializer: as in `BaseSeparableConv`.
        pointwise_initializer: as in `BaseSeparableConv`.
        bias_initializer: as in `BaseSeparableConv`.
        depthwise_regularizer: as in `BaseSeparableConv`.
        pointwise_regularizer: as in `BaseSeparableConv`.
        bias_regularizer: as in `BaseSeparableConv`.
        activity_regularizer: as in `BaseSeparableConv`.
        depthwise_constraint: as in `BaseSeparableConv`.
        pointwise_constraint: as in `BaseSeparableConv`.
        bias_constraint: as in `BaseSeparableConv`.

    Example:
        >>> SeparableConv2D(8, 3)(np.ones((2, 10, 10, 4))).shape  # (2, 8, 8, 8)
    """

    rank = 2
