"""The tensorflow backend for Lamina: tf.function steps, tf.Variables, XLA when asked."""

from lamina.backend.kit import Backend, Capability, ModuleBackend
from lamina_tensorflow import (
    control_flow,
    core,
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
from lamina_tensorflow._version import __version__ as __version__
from lamina_tensorflow.autograph import skip_lamina_in_autograph
from lamina_tensorflow.layer import TensorflowLayerMixin
from lamina_tensorflow.trainer import TensorflowTrainer
from lamina_tensorflow.variable import TensorflowVariable

skip_lamina_in_autograph()

backend: Backend = ModuleBackend(
    name="tensorflow",
    capabilities=frozenset(
        {Capability.TRAINING, Capability.JIT, Capability.FLOAT64, Capability.GPU}
    ),
    core=core,
    control_flow=control_flow,
    numpy=numpy,
    nn=nn,
    math=math,
    linalg=linalg.ops,
    image=image,
    random=random,
    variable_class=TensorflowVariable,
    runtime=runtime,
    layer_mixin=TensorflowLayerMixin,
    trainer_mixin=TensorflowTrainer,
    fused=fused,
    export=export,
)

__all__ = ["__version__", "backend"]
