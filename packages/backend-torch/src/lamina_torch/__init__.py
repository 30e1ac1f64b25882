"""The torch backend for Lamina: eager autograd; layers are torch.nn.Modules."""

from lamina.backend.kit import Backend, Capability, ModuleBackend, Namespaces
from lamina_torch import control_flow, core, image, linalg, math, nn, numpy, random, runtime

# isort: split
# The optional parts of the backend:
from lamina_torch import distribution, fused, optimizers
from lamina_torch._version import __version__ as __version__
from lamina_torch.layer import TorchLayerMixin
from lamina_torch.trainer import TorchTrainer
from lamina_torch.variable import TorchVariable

backend: Backend = ModuleBackend.assemble(
    "torch",
    {Capability.TRAINING, Capability.JIT, Capability.FLOAT64, Capability.GPU},
    Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random, runtime),
    (TorchVariable, TorchLayerMixin, TorchTrainer),
    optimizer_rules=optimizers.RULES,
    # check_layer fits every layer with eager steps: compiling one model takes seconds, so
    # torch.compile is checked per layer family (tests/test_compile_torch.py).
    step_modes=({"jit_compile": False},),
    fused=fused,
    distribution=distribution,
)

__all__ = ["__version__", "backend"]
