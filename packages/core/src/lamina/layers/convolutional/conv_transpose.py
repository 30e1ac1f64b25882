"""`Conv1DTranspose`, `Conv2DTranspose` and `Conv3DTranspose`."""

from __future__ import annotations

from lamina.layers.convolutional.base_conv_transpose import BaseConvTranspose

__all__ = ["Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]


class Conv1DTranspose(BaseConvTranspose):
    """1D transposed convolution: upsamples sequences with a learned kernel.

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 1 ints.
        strides: int or tuple of 1 ints (the upsampling factor).
        padding: ``"valid"`` or ``"same"`` (output size ``input * strides``).
        output_padding: None or int/tuple of 1 ints, each smaller than its stride.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 1 ints.
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.

    Example:
        >>> Conv1DTranspose(8, 3, strides=2, padding="same")(np.ones((2, 5, 4))).shape
    """

    rank = 1


class Conv2DTranspose(BaseConvTranspose):
    """2D transposed convolution: upsamples images with a learned kernel.

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 2 ints.
        strides: int or tuple of 2 ints (the upsampling factor).
        padding: ``"valid"`` or ``"same"`` (output size ``input * strides``).
        output_padding: None or int/tuple of 2 ints, each smaller than its stride.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 2 ints.
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.

    Example:
        >>> Conv2DTranspose(8, 3, strides=2, padding="same")(np.ones((2, 5, 5, 4))).shape
    """

    rank = 2


class Conv3DTranspose(BaseConvTranspose):
    """3D transposed convolution: upsamples volumes with a learned kernel.

    Args:
        filters: the number of output channels.
        kernel_size: int or tuple of 3 ints.
        strides: int or tuple of 3 ints (the upsampling factor).
        padding: ``"valid"`` or ``"same"`` (output size ``input * strides``).
        output_padding: None or int/tuple of 3 ints, each smaller than its stride.
        data_format: ``"channels_last"`` or ``"channels_first"``; None: the config's.
        dilation_rate: int or tuple of 3 ints.
        activation: as in `BaseConv`.
        use_bias: as in `BaseConv`.
        kernel_initializer: as in `BaseConv`.
        bias_initializer: as in `BaseConv`.
        kernel_regularizer: as in `BaseConv`.
        bias_regularizer: as in `BaseConv`.
        activity_regularizer: as in `BaseConv`.
        kernel_constraint: as in `BaseConv`.
        bias_constraint: as in `BaseConv`.

    Example:
        >>> Conv3DTranspose(8, 3, strides=2, padding="same")(np.ones((2, 3, 3, 3, 4))).shape
    """

    rank = 3
