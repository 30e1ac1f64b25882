"""`Conv1D`, `Conv2D` and `Conv3D`: convolution layers of fixed rank."""

from __future__ import annotations

from typing import Any

from lamina.layers.convolutional.base_conv import BaseConv

__all__ = ["Conv1D", "Conv2D", "Conv3D"]


class Conv1D(BaseConv):
    """1D convolution over sequences (causal padding keeps outputs from seeing the future).

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 1 ints.
        strides: int or tuple of 1 ints.
        padding: ``"valid"``, ``"same"`` or ``"causal"`` (left-pad so output t sees inputs <= t).
        data_format: ``"channels_last"`` (inputs ``(batch, steps, channels)``) or
            ``"channels_first"``
            (inputs ``(batch, channels, steps)``); None: `lamina.config.image_data_format()`.
        dilation_rate: int or tuple of 1 ints.
        groups: the number of channel groups (both channel counts must divide by it).
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.
        lora_rank: enable LoRA at build time (see `enable_lora`).
        lora_alpha: enable LoRA at build time (see `enable_lora`).

    Example:
        >>> Conv1D(8, 3)(np.ones((2, 10, 4))).shape  # (2, 8, 8)
    """

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
        super().__init__(
            rank=1,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            lora_rank=lora_rank,
            lora_alpha=lora_alpha,
            **kwargs,
        )


class Conv2D(BaseConv):
    """2D convolution over images.

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (inputs ``(batch, rows, cols, channels)``) or
            ``"channels_first"``
            (inputs ``(batch, channels, rows, cols)``); None: `lamina.config.image_data_format()`.
        dilation_rate: int or tuple of 2 ints.
        groups: the number of channel groups (both channel counts must divide by it).
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.
        lora_rank: enable LoRA at build time (see `enable_lora`).
        lora_alpha: enable LoRA at build time (see `enable_lora`).

    Example:
        >>> Conv2D(8, 3)(np.ones((2, 10, 10, 4))).shape  # (2, 8, 8, 8)
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1),
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
        super().__init__(
            rank=2,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            lora_rank=lora_rank,
            lora_alpha=lora_alpha,
            **kwargs,
        )


class Conv3D(BaseConv):
    """3D convolution over volumes (or videos).

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 3 ints.
        strides: int or tuple of 3 ints.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (inputs ``(batch, d1, d2, d3, channels)``) or
            ``"channels_first"``
            (inputs ``(batch, channels, d1, d2, d3)``); None: `lamina.config.image_data_format()`.
        dilation_rate: int or tuple of 3 ints.
        groups: the number of channel groups (both channel counts must divide by it).
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.
        lora_rank: enable LoRA at build time (see `enable_lora`).
        lora_alpha: enable LoRA at build time (see `enable_lora`).

    Example:
        >>> Conv3D(8, 3)(np.ones((2, 5, 5, 5, 4))).shape  # (2, 3, 3, 3, 8)
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1, 1),
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = (1, 1, 1),
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
        super().__init__(
            rank=3,
            filters=filters,
            kernel_size=kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            groups=groups,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            lora_rank=lora_rank,
            lora_alpha=lora_alpha,
            **kwargs,
        )
