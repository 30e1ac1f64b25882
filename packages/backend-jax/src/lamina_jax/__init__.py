"""The jax backend for Lamina: JAX on XLA, pure functions, jit-compiled steps."""

from lamina.backend.kit import Backend, Capability, ModuleBackend, Namespaces
from lamina_jax import control_flow, core, image, linalg, math, nn, numpy, random, runtime

# isort: split
# The optional parts of the backend:
from lamina_jax import distribution, export, fused
from lamina_jax._version import __version__ as __version__
from lamina_jax.layer import JaxLayerMixin
from lamina_jax.trainer import JaxTrainer
from lamina_jax.variable import JaxVariable

# No FLOAT64: JAX keeps 64-bit types only with `jax_enable_x64`, a process-wide switch that
# Lamina leaves to the user rather than flipping at import.
backend: Backend = ModuleBackend.assemble(
    "jax",
    {Capability.TRAINING, Capability.JIT, Capability.GPU, Capability.STATIC_SHAPES},
    Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random, runtime),
    (JaxVariable, JaxLayerMixin, JaxTrainer),
    fused=fused,
    distribution=distribution,
    export=export,
)

__all__ = ["__version__", "backend"]
