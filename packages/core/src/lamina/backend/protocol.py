"""The contract between the core and a backend package.

A backend package exposes one object satisfying `Backend` through the ``lamina.backends``
entry-point group. Each namespace (``core``, ``numpy``, ``nn``...) is usually a module of
the backend package; mypy checks the module member by member against its protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .capabilities import Capability
from .protocols.control_flow import ControlFlowOps
from .protocols.core import CoreOps
from .protocols.distribution import DistributionOps
from .protocols.export import ExportOps
from .protocols.fused import FusedKernels
from .protocols.image import ImageOps
from .protocols.linalg import LinalgOps
from .protocols.math import MathOps
from .protocols.nn import NNOps
from .protocols.numpy import NumpyOps
from .protocols.random import RandomOps
from .protocols.runtime import RuntimeOps

if TYPE_CHECKING:
    from lamina.variables.variable import Variable

    from .layer_mixin import LayerMixin

BACKEND_API = (1, 0)
"""The protocol version this core speaks; a backend must share the major number."""

OptimizerRule = Callable[[Any, list[Any], list[Any], Any], bool]
"""``rule(optimizer, grads, variables, learning_rate)``: apply the optimizer's
`update_step` to every variable at once and return True, or return False (changing
nothing) for inputs it does not handle."""


class Backend(Protocol):
    """Everything a backend supplies to the core."""

    @property
    def name(self) -> str:
        """Short name, also the entry-point name (``"jax"``)."""
        ...

    @property
    def api_version(self) -> tuple[int, int]:
        """The `BACKEND_API` this backend was written against."""
        ...

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this backend can do."""
        ...

    @property
    def core(self) -> CoreOps: ...

    @property
    def control_flow(self) -> ControlFlowOps: ...

    @property
    def numpy(self) -> NumpyOps: ...

    @property
    def nn(self) -> NNOps: ...

    @property
    def math(self) -> MathOps: ...

    @property
    def linalg(self) -> LinalgOps: ...

    @property
    def image(self) -> ImageOps: ...

    @property
    def random(self) -> RandomOps: ...

    @property
    def variable_class(self) -> type[Variable]:
        """The `lamina.Variable` subclass that holds this backend's state."""
        ...

    @property
    def layer_mixin(self) -> type[LayerMixin]:
        """A base class mixed into `lamina.layers.Layer` (``torch.nn.Module`` on PyTorch)."""
        ...

    @property
    def trainer_mixin(self) -> type:
        """A base class put ahead of the core `Trainer` in `Model`: the backend's train step,
        how steps are compiled, and where loop state lives."""
        ...

    @property
    def optimizer_rules(self) -> Mapping[type, OptimizerRule]:
        """Update rules this backend runs for all variables at once (fused kernels), by
        the optimizer class whose `update_step` each reproduces (a subclass with its own
        `update_step` never matches). A rule reads the state through `Optimizer.slots`."""
        ...

    @property
    def runtime(self) -> RuntimeOps:
        """Seeds, counters, profiling and determinism: where backends differ outside ops."""
        ...

    @property
    def fused(self) -> FusedKernels | None:
        """Whole-sequence recurrent kernels (LSTM, GRU), or None: the layers then loop
        over their cells with `ops.scan`."""
        ...

    @property
    def distribution(self) -> DistributionOps | None:
        """Meshes, layouts and multi-process set-up on the engine's own distributed
        runtime (`lamina.distribution`), or None for a backend that runs on one device."""
        ...

    @property
    def export(self) -> ExportOps | None:
        """How `lamina.export` turns this backend's functions into a TensorFlow SavedModel,
        or None for a backend whose models cannot be exported that way."""
        ...

    @property
    def step_modes(self) -> tuple[Mapping[str, Any], ...]:
        """The `Model.compile` arguments whose train steps differ on this backend, each
        checked by `lamina.testing.check_layer`: ``({},)`` (the default step), or one entry
        per mode where compiling is opt-in (``{"jit_compile": True}`` for torch.compile)."""
        ...

    def supports(self, capability: Capability) -> bool:
        """Whether `capability` is among `capabilities`."""
        ...
