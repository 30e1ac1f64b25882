"""The NumPy backend for Lamina (inference only: no gradients).

SciPy is imported inside the functions that use it, so that `import lamina` stays fast.
"""

from lamina.backend.kit import Backend, Capability, ModuleBackend
from lamina_numpy import control_flow, core, image, linalg, math, nn, numpy, random
from lamina_numpy._version import __version__ as __version__
from lamina_numpy.layer import NumpyLayerMixin
from lamina_numpy.trainer import NumpyTrainer
from lamina_numpy.variable import NumpyVariable

backend: Backend = ModuleBackend(
    name="numpy",
    capabilities=frozenset({Capability.FLOAT64}),
    core=core,
    control_flow=control_flow,
    numpy=numpy,
    nn=nn,
    math=math,
    linalg=linalg.ops,
    image=image,
    random=random,
    variable_class=NumpyVariable,
    layer_mixin=NumpyLayerMixin,
    trainer_mixin=NumpyTrainer,
)

__all__ = ["__version__", "backend"]
