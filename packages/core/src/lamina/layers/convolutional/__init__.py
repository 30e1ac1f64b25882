"""Convolution layers: plain, transposed, depthwise and separable, in 1D to 3D."""

from lamina.layers.convolutional.base_conv import BaseConv as BaseConv
from lamina.layers.convolutional.base_conv_transpose import (
    BaseConvTranspose as BaseConvTranspose,
)
from lamina.layers.convolutional.conv import Conv1D as Conv1D
from lamina.layers.convolutional.conv import Conv2D as Conv2D
from lamina.layers.convolutional.conv import Conv3D as Conv3D
from lamina.layers.convolutional.conv_transpose import Conv1DTranspose as Conv1DTranspose
from lamina.layers.convolutional.conv_transpose import Conv2DTranspose as Conv2DTranspose
from lamina.layers.convolutional.conv_transpose import Conv3DTranspose as Conv3DTranspose
from lamina.layers.convolutional.depthwise_conv import BaseDepthwiseConv as BaseDepthwiseConv
from lamina.layers.convolutional.depthwise_conv import DepthwiseConv1D as DepthwiseConv1D
from lamina.layers.convolutional.depthwise_conv import DepthwiseConv2D as DepthwiseConv2D
from lamina.layers.convolutional.separable_conv import BaseSeparableConv as BaseSeparableConv
from lamina.layers.convolutional.separable_conv import SeparableConv1D as SeparableConv1D
from lamina.layers.convolutional.separable_conv import SeparableConv2D as SeparableConv2D

# Keras' long-form aliases.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D

__all__ = [
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1D",
    "Convolution1DTranspose",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
]
