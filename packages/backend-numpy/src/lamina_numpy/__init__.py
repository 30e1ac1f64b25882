"""The NumPy backend for Lamina (inference only: no gradients).

SciPy is imported inside the functions that use it, so that `import lamina` stays fast.
"""

from lamina.backend.kit import Backend, Capability, ModuleBackend, Namespaces
from lamina_numpy import control_flow, core, image, linalg, math, nn, numpy, random
from lamina_numpy._version import __version__ as __version__
from lamina_numpy.layer import NumpyLayerMixin
from lamina_numpy.trainer import NumpyTrainer
from lamina_numpy.variable import NumpyVariable

backend: Backend = ModuleBackend.assemble(
    "numpy",
    {Capability.FLOAT64},
    Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random),
    (NumpyVariable, NumpyLayerMixin, NumpyTrainer),
)

__all__ = ["__version__", "backend"]
