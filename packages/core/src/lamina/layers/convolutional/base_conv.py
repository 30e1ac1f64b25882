"""`BaseConv`: the N-D (grouped, dilated, strided) convolution behind Conv1D/2D/3D."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils as u
from lamina.layers.core.lora import LoraLayer
from lamina.layers.input_spec import InputSpec


class BaseConv(LoraLayer):
    """Shared logic of `Conv1D`, `Conv2D` and `Conv3D`.

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of `rank` ints, the window size.
        strides: int or tuple, the window step (strides > 1 excludes dilation > 1).
        padding: ``"valid"``, ``"same"`` or (rank 1 only) ``"causal"``.
        data_format: ``"channels_last"``, ``"channels_first"`` or None (the config's).
        dilation_rate: int or tuple, the spacing between kernel taps.
        groups: split the input channels into this many groups, each convolved with
            ``filters // groups`` filters.
        activation: applied to the output (None: linear).
        use_bias: whether to add a learned bias.
        kernel_initializer: initializers of the weights.
        bias_initializer: initializers of the weights.
        kernel_regularizer: penalties on the weights.
        bias_regularizer: penalties on the weights.
        activity_regularizer: a penalty on the output.
        kernel_constraint: projections applied after updates.
        bias_constraint: projections applied after updates.
        lora_rank: when set, LoRA is enabled at build time with this rank (the kernel is
            frozen and a low-rank update ``A @ B`` is trained instead).
        lora_alpha: the LoRA update is scaled by ``lora_alpha / lora_rank``.
    """

    rank: int
    """The number of spatial dims; each public subclass fixes it."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        groups: int = 1,
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
        self._init_lora(lora_rank, lora_alpha)
        name = type(self).__name__
        rank = self.rank
        self.filters = u.positive_int(name, "filters", filters)
        self.groups = u.positive_int(name, "groups", groups)
        if self.filters % self.groups:
            raise ValueError(
                f"{name}: argument `filters` must be divisible by `groups`. "
                f"Received: filters={filters}, groups={groups}"
            )
        self.kernel_size = u.normalize_tuple(name, "kernel_size", kernel_size, rank)
        self.strides = u.normalize_tuple(name, "strides", strides, rank)
        self.dilation_rate = u.normalize_tuple(name, "dilation_rate", dilation_rate, rank)
        allowed = ("valid", "same", "causal") if rank == 1 else ("valid", "same")
        self.padding = u.standardize_padding(name, padding, allowed)
        self.data_format = u.standardize_data_format(name, data_format)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{name}: `strides` > 1 cannot be combined with `dilation_rate` > 1. "
                f"Received: strides={strides!r}, dilation_rate={dilation_rate!r}"
            )
        self.activation = u.get_activation(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = u.get_initializer(kernel_initializer)
        self.bias_initializer = u.get_initializer(bias_initializer)
        self.kernel_regularizer = u.get_regularizer(kernel_regularizer)
        self.bias_regularizer = u.get_regularizer(bias_regularizer)
        self.kernel_constraint = u.get_constraint(kernel_constraint)
        self.bias_constraint = u.get_constraint(bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _input_channels(self, input_shape: Any) -> int:
        shape = tuple(input_shape)
        if len(shape) != self.rank + 2:
            raise ValueError(
                f"{type(self).__name__}: expected an input of rank {self.rank + 2} "
                f"(batch, {self.rank} spatial dims, channels). Received: input_shape={shape}"
            )
        channels = shape[u.channel_axis(self.data_format)]
        if channels is None:
            raise ValueError(
                f"{type(self).__name__}: the channel dim of the input must be known to build "
                f"the kernel. Received: input_shape={shape}"
            )
        return int(channels)

    def build(self, input_shape: Any = None) -> None:
        channels = self._input_channels(input_shape)
        if channels % self.groups:
            raise ValueError(
                f"{type(self).__name__}: the input channels must be divisible by `groups`. "
                f"Received: input channels={channels}, groups={self.groups}"
            )
        axis = u.channel_axis(self.data_format) % (self.rank + 2)
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={axis: channels})
        self._kernel = self.add_weight(
            shape=(*self.kernel_size, channels // self.groups, self.filters),
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
        self._build_lora()

    @property
    def kernel(self) -> Any:
        """The kernel in use: the variable, or its value plus the LoRA update once enabled."""
        return self._effective_weight() if self.lora_enabled else self._kernel

    def _add_bias_and_activate(self, outputs: Any) -> Any:
        if self.bias is not None:
            if self.data_format == "channels_last":
                outputs = ops.add(outputs, self.bias.value)
            else:
                shape = (1, -1) + (1,) * self.rank
                outputs = ops.add(outputs, ops.reshape(self.bias.value, shape))
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def call(self, inputs: Any) -> Any:
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            time_axis = 1 if self.data_format == "channels_last" else 2
            pads = [(0, 0)] * 3
            pads[time_axis] = (left, 0)
            inputs = ops.pad(inputs, pads)
            padding = "valid"
        outputs = ops.conv(
            inputs,
            self._effective_weight(),
            strides=self.strides,
            padding=padding,
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
        out = tuple(
            u.conv_output_length(shape[a], k, s, d, self.padding)
            for a, k, s, d in zip(axes, self.kernel_size, self.strides, self.dilation_rate)
        )
        u.check_output_dims(type(self).__name__, shape, out)
        return out

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        spatial = self._spatial_output(input_shape)
        if self.data_format == "channels_last":
            return (input_shape[0], *spatial, self.filters)
        return (input_shape[0], self.filters, *spatial)

    def _base_config(self) -> dict[str, Any]:
        config = u.base_config(self)
        config.update(
            {
                "kernel_size": self.kernel_size,
                "strides": self.strides,
                "padding": self.padding,
                "data_format": self.data_format,
                "dilation_rate": self.dilation_rate,
                "activation": u.serialize("activations", self.activation),
                "use_bias": self.use_bias,
                "bias_initializer": u.serialize("initializers", self.bias_initializer),
                "bias_regularizer": u.serialize("regularizers", self.bias_regularizer),
                "activity_regularizer": u.serialize("regularizers", self.activity_regularizer),
                "bias_constraint": u.serialize("constraints", self.bias_constraint),
            }
        )
        return config

    def get_config(self) -> dict[str, Any]:
        config = self._base_config()
        config.update(
            {
                "filters": self.filters,
                "groups": self.groups,
                "kernel_initializer": u.serialize("initializers", self.kernel_initializer),
                "kernel_regularizer": u.serialize("regularizers", self.kernel_regularizer),
                "kernel_constraint": u.serialize("constraints", self.kernel_constraint),
            }
        )
        config.update(self._lora_config())
        return config
