"""`BaseConvTranspose`: the transposed ("deconvolution") layer behind Conv1D/2D/3DTranspose."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.convolutional.base_conv import BaseConv
from lamina.layers.input_spec import InputSpec


class BaseConvTranspose(BaseConv):
    """Shared logic of the transposed convolutions: the gradient of a conv w.r.t. its input.

    It maps a `strides`-times smaller input up to the size the matching forward conv reads.
    The kernel layout is ``(*kernel_size, filters, input_channels)``.

    Args:
        filters: the number of output channels.
        kernel_size: as in `BaseConv` (padding is ``"valid"`` or ``"same"``).
        strides: as in `BaseConv` (padding is ``"valid"`` or ``"same"``).
        padding: as in `BaseConv` (padding is ``"valid"`` or ``"same"``).
        data_format: as in `BaseConv` (padding is ``"valid"`` or ``"same"``).
        dilation_rate: as in `BaseConv` (padding is ``"valid"`` or ``"same"``).
        output_padding: None (inferred) or int/tuple of extra output rows per dim, each
            smaller than its stride.
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        initializers: as in `BaseConv`.
        regularizers: as in `BaseConv`.
        constraints: as in `BaseConv`.
    """

    rank: int
    """The number of spatial dims; each public subclass fixes it."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(padding, str) and padding.lower() == "causal":
            raise ValueError(
                f"{type(self).__name__}: argument `padding` must be one of ('valid', 'same'). "
                f"Received: padding={padding!r}"
            )
        super().__init__(
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=1,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            **kwargs,
        )
        self.output_padding: tuple[int, ...] | None = None
        if output_padding is not None:
            name = type(self).__name__
            self.output_padding = u.normalize_tuple(
                name, "output_padding", output_padding, self.rank, minimum=0
            )
            if any(o >= s for o, s in zip(self.output_padding, self.strides)):
                raise ValueError(
                    f"{name}: each `output_padding` must be smaller than its stride. "
                    f"Received: output_padding={output_padding!r}, strides={strides!r}"
                )

    def build(self, input_shape: Any = None) -> None:
        channels = self._input_channels(input_shape)
        axis = u.channel_axis(self.data_format) % (self.rank + 2)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        self._kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
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

    def call(self, inputs: Any) -> Any:
        outputs = ops.conv_transpose(
            inputs,
            self._effective_weight(),
            strides=self.strides,
            padding=self.padding,
            output_padding=self.output_padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        return self._add_bias_and_activate(outputs)

    def _spatial_output(self, input_shape: Any) -> tuple[Any, ...]:
        shape = tuple(input_shape)
        if len(shape) != self.rank + 2:
            raise ValueError(
                f"{type(self).__name__}: expected an input of rank {self.rank + 2}. "
                f"Received: input_shape={shape}"
            )
        axes = u.spatial_axes(self.rank, self.data_format)
        outpad = self.output_padding or (None,) * self.rank
        return tuple(
            u.deconv_output_length(shape[a], k, s, d, self.padding, o)
            for a, k, s, d, o in zip(
                axes, self.kernel_size, self.strides, self.dilation_rate, outpad
            )
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        for key in ("groups", "lora_rank", "lora_alpha"):
            config.pop(key, None)
        config["output_padding"] = self.output_padding
        return config
