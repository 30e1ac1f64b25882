"""`Conv1D`, `Conv2D` and `Conv3D`: convolution layers of fixed rank."""

from __future__ import annotations

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

    rank = 1


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

    rank = 2


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

    rank = 3
