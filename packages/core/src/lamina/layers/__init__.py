"""Layers (``lamina.layers``)."""

from lamina.layers.input_layer import Input as Input
from lamina.layers.input_layer import InputLayer as InputLayer
from lamina.layers.input_spec import InputSpec as InputSpec
from lamina.layers.layer import Layer as Layer

__all__ = ["Input", "InputLayer", "InputSpec", "Layer"]
