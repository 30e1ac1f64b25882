"""Layers that wrap another framework's code: a torch module (torch backend), JAX functions
and Flax modules (JAX backend), a TensorFlow SavedModel (TensorFlow backend).

Each is importable everywhere and refuses, with a clear error, to be built on a backend
that cannot run what it wraps.
"""

from lamina.layers.interop.jax_layer import FlaxLayer as FlaxLayer
from lamina.layers.interop.jax_layer import JaxLayer as JaxLayer
from lamina.layers.interop.tfsm_layer import TFSMLayer as TFSMLayer
from lamina.layers.interop.torch_module_wrapper import TorchModuleWrapper as TorchModuleWrapper

__all__ = ["FlaxLayer", "JaxLayer", "TFSMLayer", "TorchModuleWrapper"]
