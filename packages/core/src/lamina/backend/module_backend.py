"""`ModuleBackend`: a `Backend` assembled from one module per namespace.

Every built-in backend is made this way; constructing one has mypy check each module,
member by member, against its namespace protocol. `ModuleBackend.assemble` takes the
namespaces as one `Namespaces` tuple and the three classes as one tuple, so that an adapter
states only its name, capabilities, modules and classes, and the optional parts it has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
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


@dataclasses.dataclass(frozen=True, eq=False)
class Namespaces:
    """A backend's op namespaces, in `Backend`'s order; mypy checks each against its protocol
    (a module in the wrong place fails the check, as a missing or mistyped member does)."""

    core: CoreOps
    control_flow: ControlFlowOps
    numpy: NumpyOps
    nn: NNOps
    math: MathOps
    linalg: LinalgOps
    image: ImageOps
    random: RandomOps
    runtime: RuntimeOps = generic_runtime
    """Optional: seeds, counters, profiler and determinism (the generic one by default)."""


@dataclasses.dataclass(frozen=True, repr=False, eq=False, kw_only=True)
class ModuleBackend(Namespaces):
    """The namespaces, classes and capabilities of one backend, fixed at creation."""

    name: str
    capabilities: frozenset[Capability]
    variable_class: type[Variable]
    layer_mixin: type[LayerMixin]
    trainer_mixin: type
    optimizer_rules: Mapping[type, OptimizerRule] = dataclasses.field(default_factory=dict)
    fused: FusedKernels | None = None
    distribution: DistributionOps | None = None
    export: ExportOps | None = None
    step_modes: tuple[Mapping[str, Any], ...] = dataclasses.field(default_factory=lambda: ({},))
    api_version: tuple[int, int] = BACKEND_API

    @classmethod
    def assemble(
        cls,
        name: str,
        capabilities: Iterable[Capability],
        namespaces: Namespaces,
        classes: tuple[type[Variable], type[LayerMixin], type],
        *,
        optimizer_rules: Mapping[type, OptimizerRule] | None = None,
        fused: FusedKernels | None = None,
        distribution: DistributionOps | None = None,
        export: ExportOps | None = None,
        step_modes: tuple[Mapping[str, Any], ...] = ({},),
        api_version: tuple[int, int] = BACKEND_API,
    ) -> ModuleBackend:
        """A backend from its `namespaces` and its ``(variable_class, layer_mixin,
        trainer_mixin)`` `classes`; the keywords are the optional parts, as the fields.

        Example:
            >>> backend: Backend = ModuleBackend.assemble(  # doctest: +SKIP
            ...     "mylib",
            ...     {Capability.FLOAT64},
            ...     Namespaces(core, control_flow, numpy, nn, math, linalg.ops, image, random),
            ...     (MyVariable, MyLayerMixin, MyTrainer),
            ... )
        """
        variable_class, layer_mixin, trainer_mixin = classes
        spaces = {f.name: getattr(namespaces, f.name) for f in dataclasses.fields(Namespaces)}
        return cls(
            **spaces,
            name=name,
            capabilities=frozenset(capabilities),
            variable_class=variable_class,
            layer_mixin=layer_mixin,
            trainer_mixin=trainer_mixin,
            optimizer_rules={} if optimizer_rules is None else optimizer_rules,
            fused=fused,
            distribution=distribution,
            export=export,
            step_modes=step_modes,
            api_version=api_version,
        )

    def supports(self, capability: Capability) -> bool:
        """Whether `capability` is among `capabilities`."""
        return capability in self.capabilities

    def __repr__(self) -> str:
        return f"<lamina backend {self.name!r}>"
