"""The ``numpy`` namespace on the array API standard, one module per family."""

from lamina_array_api.numpy.creation import *
from lamina_array_api.numpy.elementwise import *
from lamina_array_api.numpy.linear import *
from lamina_array_api.numpy.reduction import *
from lamina_array_api.numpy.shape import *
