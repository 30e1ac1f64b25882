"""Reshaping layers: flatten, reshape, permute, repeat, and spatial padding, cropping and
upsampling."""

from lamina.layers.reshaping.cropping import Cropping1D as Cropping1D
from lamina.layers.reshaping.cropping import Cropping2D as Cropping2D
from lamina.layers.reshaping.cropping import Cropping3D as Cropping3D
from lamina.layers.reshaping.flatten import Flatten as Flatten
from lamina.layers.reshaping.reshape import Permute as Permute
from lamina.layers.reshaping.reshape import RepeatVector as RepeatVector
from lamina.layers.reshaping.reshape import Reshape as Reshape
from lamina.layers.reshaping.up_sampling import UpSampling1D as UpSampling1D
from lamina.layers.reshaping.up_sampling import UpSampling2D as UpSampling2D
from lamina.layers.reshaping.up_sampling import UpSampling3D as UpSampling3D
from lamina.layers.reshaping.zero_padding import ZeroPadding1D as ZeroPadding1D
from lamina.layers.reshaping.zero_padding import ZeroPadding2D as ZeroPadding2D
from lamina.layers.reshaping.zero_padding import ZeroPadding3D as ZeroPadding3D

__all__ = [
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Flatten",
    "Permute",
    "RepeatVector",
    "Reshape",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
]
