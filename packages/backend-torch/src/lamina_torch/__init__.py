"""The torch backend for Lamina: eager autograd; layers are torch.nn.Modules."""

from lamina.backend.kit import Backend, Capability, ModuleBackend
from lamina_torch import (
    control_flow,
    core,
    distribution,
    fused,
    image,
    linalg,
    math,
    nn,
    numpy,
    optimizers,
    random,
    runtime,
)
from lamina_torch._version import __version__ as __version__
from lamina_torch.layer import TorchLayerMixin
from lamina_torch.trainer import TorchTrainer
from lamina_torch.variable import TorchVariable

backend: Backend = ModuleBackend(
    name="torch",
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
    variable_class=TorchVariable,
    runtime=runtime,
    layer_mixin=TorchLayerMixin,
    trainer_mixin=TorchTrainer,
    optimizer_rules=optimizers.RULES,
    fused=fused,
    distribution=distribution,
    # torch.compile is opt-in (`jit_compile=True`); eager steps are the default.
    step_modes=({"jit_compile": False}, {"jit_compile": True}),
)

__all__ = ["__version__", "backend"]
