"""`ModuleBackend`: a `Backend` assembled from one module per namespace.

Every built-in backend is made this way; constructing one has mypy check each module,
member by member, against its namespace protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import generic_runtime
from .capabilities import Capability
from .protocol import BACKEND_API, OptimizerRule
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


@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class ModuleBackend:
    """The namespaces, classes and capabilities of one backend, fixed at creation."""

    name: str
    capabilities: frozenset[Capability]
    core: CoreOps
    control_flow: ControlFlowOps
    numpy: NumpyOps
    nn: NNOps
    math: MathOps
    linalg: LinalgOps
    image: ImageOps
    random: RandomOps
    variable_class: type[Variable]
    layer_mixin: type[LayerMixin]
    trainer_mixin: type
    optimizer_rules: Mapping[type, OptimizerRule] = dataclasses.field(default_factory=dict)
    fused: FusedKernels | None = None
    distribution: DistributionOps | None = None
    export: ExportOps | None = None
    step_modes: tuple[Mapping[str, Any], ...] = dataclasses.field(default_factory=lambda: ({},))
    runtime: RuntimeOps = generic_runtime
    api_version: tuple[int, int] = BACKEND_API

    def supports(self, capability: Capability) -> bool:
        """Whether `capability` is among `capabilities`."""
        return capability in self.capabilities

    def __repr__(self) -> str:
        return f"<lamina backend {self.name!r}>"
