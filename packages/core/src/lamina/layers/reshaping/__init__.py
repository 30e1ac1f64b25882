"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector (and the padding, cropping and
upsampling layers in their own modules)."""

from lamina.layers.reshaping.flatten import Flatten as Flatten
from lamina.layers.reshaping.reshape import Permute as Permute
from lamina.layers.reshaping.reshape import RepeatVector as RepeatVector
from lamina.layers.reshaping.reshape import Reshape as Reshape

__all__ = ["Flatten", "Permute", "RepeatVector", "Reshape"]
