"""The jax backend for Lamina: JAX on XLA, pure functions, jit-compiled steps."""

from lamina.backend.kit import Backend, Capability, ModuleBackend
from lamina_jax import (
    control_flow,
    core,
    distribution,
    export,
    fused,
    image,
    linalg,
    math,
    nn,
    numpy,
    random,
    runtime,
)
from lamina_jax._version import __version__ as __version__
from lamina_jax.layer import JaxLayerMixin
from lamina_jax.trainer import JaxTrainer
from lamina_jax.variable import JaxVariable

# No FLOAT64: JAX keeps 64-bit types only with `jax_enable_x64`, a process-wide switch that
# Lamina leaves to the user rather than flipping at import.
backend: Backend = ModuleBackend(
    name="jax",
    capabilities=frozenset({Capability.TRAINING, Capability.JIT, Capability.GPU}),
    core=core,
    control_flow=control_flow,
    numpy=numpy,
    nn=nn,
    math=math,
    linalg=linalg.ops,
    image=image,
    random=random,
    variable_class=JaxVariable,
    runtime=runtime,
    layer_mixin=JaxLayerMixin,
    trainer_mixin=JaxTrainer,
    fused=fused,
    distribution=distribution,
    export=export,
)

__all__ = ["__version__", "backend"]
