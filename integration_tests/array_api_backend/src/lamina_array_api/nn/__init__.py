"""The ``nn`` namespace on the array API standard, one module per family."""

from lamina_array_api.nn.activations import *
from lamina_array_api.nn.conv import *
