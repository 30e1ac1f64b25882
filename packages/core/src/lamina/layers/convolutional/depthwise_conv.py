"""Depthwise convolutions: every input channel is filtered on its own (no channel mixing)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.convolutional.base_conv import BaseConv
from lamina.layers.input_spec import InputSpec

__all__ = ["BaseDepthwiseConv", "DepthwiseConv1D", "DepthwiseConv2D"]


class BaseDepthwiseConv(BaseConv):
    """Shared logic of `DepthwiseConv1D`/`DepthwiseConv2D`.

    The kernel is ``(*kernel_size, input_channels, depth_multiplier)``; the output has
    ``input_channels * depth_multiplier`` channels.

    Args:
        depth_multiplier: the number of filters per input channel.
        kernel_size: as in `BaseConv`.
        strides: as in `BaseConv`.
        padding: as in `BaseConv`.
        data_format: as in `BaseConv`.
        dilation_rate: as in `BaseConv`.
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        depthwise_initializer: for the kernel.
        depthwise_regularizer: for the kernel.
        depthwise_constraint: for the kernel.
        bias_initializer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.
    """

    rank: int
    """The number of spatial dims; each public subclass fixes it."""

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        depthwise_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        depthwise_constraint: Any = None,
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
            filters=1,
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

    @property
    def depthwise_initializer(self) -> Any:
        return self.kernel_initializer

    @property
    def depthwise_regularizer(self) -> Any:
        return self.kernel_regularizer

    @property
    def depthwise_constraint(self) -> Any:
        return self.kernel_constraint

    def build(self, input_shape: Any = None) -> None:
        channels = self._input_channels(input_shape)
        axis = u.channel_axis(self.data_format) % (self.rank + 2)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        self._kernel = self.add_weight(
            shape=(*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(channels * self.depth_multiplier,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        outputs = ops.depthwise_conv(
            inputs,
            self._effective_weight(),
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._add_bias_and_activate(outputs)

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        spatial = self._spatial_output(input_shape)
        channels = input_shape[u.channel_axis(self.data_format)]
        out_channels = None if channels is None else channels * self.depth_multiplier
        if self.data_format == "channels_last":
            return (input_shape[0], *spatial, out_channels)
        return (input_shape[0], out_channels, *spatial)

    def get_config(self) -> dict[str, Any]:
        config = self._base_config()
        config.update(
            {
                "depth_multiplier": self.depth_multiplier,
                "depthwise_initializer": u.serialize("initializers", self.kernel_initializer),
                "depthwise_regularizer": u.serialize("regularizers", self.kernel_regularizer),
                "depthwise_constraint": u.serialize("constraints", self.kernel_constraint),
            }
        )
        return config


class DepthwiseConv1D(BaseDepthwiseConv):
    """1D depthwise convolution: a separate set of filters per input channel.

    Args:
        kernel_size: int or tuple of 1 int.
        strides: int or tuple of 1 int.
        padding: ``"valid"`` or ``"same"``.
        depth_multiplier: filters per input channel.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 1 int.
        activation: as in `BaseDepthwiseConv`.
        use_bias: as in `BaseDepthwiseConv`.
        depthwise_initializer: as in `BaseDepthwiseConv`.
        bias_initializer: as in `BaseDepthwiseConv`.
        depthwise_regularizer: as in `BaseDepthwiseConv`.
        bias_regularizer: as in `BaseDepthwiseConv`.
        activity_regularizer: as in `BaseDepthwiseConv`.
        depthwise_constraint: as in `BaseDepthwiseConv`.
        bias_constraint: as in `BaseDepthwiseConv`.

    Example:
        >>> DepthwiseConv1D(3, depth_multiplier=2)(np.ones((2, 10, 4))).shape  # (2, 8, 8)
    """

    rank = 1


class DepthwiseConv2D(BaseDepthwiseConv):
    """2D depthwise convolution: a separate set of filters per input channel.

    Args:
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints.
        padding: ``"valid"`` or ``"same"``.
        depth_multiplier: filters per input channel.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 2 ints.
        activation: as in `BaseDepthwiseConv`.
        use_bias: as in `BaseDepthwiseConv`.
        depthwise_initializer: as in `BaseDepthwiseConv`.
        bias_initializer: as in `BaseDepthwiseConv`.
        depthwise_regularizer: as in `BaseDepthwiseConv`.
        bias_regularizer: as in `BaseDepthwiseConv`.
        activity_regularizer: as in `BaseDepthwiseConv`.
        depthwise_constraint: as in `BaseDepthwiseConv`.
        bias_constraint: as in `BaseDepthwiseConv`.

    Example:
        >>> DepthwiseConv2D(3)(np.ones((2, 10, 10, 4))).shape  # (2, 8, 8, 4)
    """

    rank = 2
