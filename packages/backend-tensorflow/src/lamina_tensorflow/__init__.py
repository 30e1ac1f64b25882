"""The tensorflow backend for Lamina: tf.function steps, tf.Variables, XLA when asked."""

from lamina.backend.kit import Backend, Capability, ModuleBackend, Namespaces
from lamina_tensorflow import control_flow, core, image, linalg, math, nn, numpy, random, runtime

# isort: split
# The optional parts of the backend:
from lamina_tensorflow import distribution, export, fused
from lamina_tensorflow._version import __version__ as __version__
from lamina_tensorflow.autograph import skip_lamina_in_autograph
from lamina_tensorflow.layer import TensorflowLayerMixin
from lamina_tensorflow.trainer import TensorflowTrainer
from lamina_tensorflow.variable import TensorflowVariable

skip_lamina_in_autograph()

backend: Backend = ModuleBackend.assemble(
    "tensorflow",
    {Capability.TRAINING, Capability.JIT, Capability.FLOAT64, Capability.GPU},
    Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random, runtime),
    (TensorflowVariable, TensorflowLayerMixin, TensorflowTrainer),
    export=export,
    fused=fused,
    distribution=distribution,
)

__all__ = ["__version__", "backend"]
