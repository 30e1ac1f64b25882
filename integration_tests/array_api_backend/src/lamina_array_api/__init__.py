"""A Lamina backend on the Python array API standard, run by `array_api_strict`.

It lives outside Lamina's backend packages and imports from Lamina only the adapter kit
(`lamina.backend.kit`): the proof that an adapter can be written and released on its own.
Inference only (the standard has no automatic differentiation).
"""

from lamina.backend.kit import Backend, Capability, ModuleBackend, Namespaces
from lamina_array_api import control_flow, core, image, linalg, math, nn, numpy, random
from lamina_array_api._version import __version__ as __version__
from lamina_array_api.layer import ArrayApiLayerMixin
from lamina_array_api.trainer import ArrayApiTrainer
from lamina_array_api.variable import ArrayApiVariable

backend: Backend = ModuleBackend.assemble(
    "array_api",
    {Capability.FLOAT64},
    Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random),
    (ArrayApiVariable, ArrayApiLayerMixin, ArrayApiTrainer),
    # The protocol version this adapter was written against (not the installed core's):
    # a core with another major version refuses it with a clear error.
    api_version=(1, 0),
)

__all__ = ["__version__", "backend"]
