"""Layers (``lamina.layers``): the base `Layer`, `Input`, and every built-in layer.

Each family lives in its own subpackage; this namespace flattens them as Keras 3 does.
"""

import lamina.layers.normalization as _normalization
from lamina.layers.input_layer import Input as Input
from lamina.layers.input_layer import InputLayer as InputLayer
from lamina.layers.input_spec import InputSpec as InputSpec
from lamina.layers.layer import Layer as Layer
from lamina.layers.normalization import *

# `+=` of each family's literal `__all__`, which mypy follows.
__all__: list[str] = ["Input", "InputLayer", "InputSpec", "Layer"]
__all__ += _normalization.__all__
