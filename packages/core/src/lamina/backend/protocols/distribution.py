"""What a backend that distributes supplies to `lamina.distribution`.

The core holds the meshes, layouts and the rules of each strategy (`DataParallel`,
`ModelParallel`); a backend maps them onto its own engine (JAX sharding,
``torch.distributed``) and is None where it runs on one device only.
"""

from __future__ import annotations

from typing import Any, Protocol

from ._types import Tensor


class DistributionOps(Protocol):
    def strategies(self) -> frozenset[str]:
        """The `lamina.distribution.Distribution` classes this backend runs, by name."""
        ...

    def list_devices(self, device_type: str | None = None) -> list[str]:
        """Every device of the job (all processes), as ``"<type>:<id>"`` strings."""
        ...

    def get_device_count(self, device_type: str | None = None) -> int:
        """How many devices `list_devices` returns."""
        ...

    def initialize(
        self, job_addresses: str | None, num_processes: int | None, process_id: int | None
    ) -> None:
        """Join a multi-process job (None: read from the engine's launcher variables)."""
        ...

    def num_processes(self) -> int:
        """Processes in the job (1 until `initialize`)."""
        ...

    def process_id(self) -> int:
        """This process's index in the job (0 until `initialize`)."""
        ...

    def distribute_tensor(self, tensor: Tensor, layout: Any) -> Tensor:
        """`tensor` placed as the `lamina.distribution.TensorLayout` `layout` says."""
        ...
