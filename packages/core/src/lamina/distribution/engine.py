"""Devices, processes and placement: what `lamina.distribution` asks the backend for."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lamina.backend.protocols.distribution import DistributionOps

if TYPE_CHECKING:
    from lamina.distribution.layouts import TensorLayout

STRATEGY_BACKENDS = {
    "DataParallel": ("jax", "tensorflow", "torch"),
    "ModelParallel": ("jax", "torch"),
}
"""Which of the built-in backends run each strategy (named in errors elsewhere)."""

_DEVICE_TYPES = ("cpu", "gpu", "tpu")


def engine(what: str = "lamina.distribution") -> DistributionOps:
    """The active backend's distribution namespace.

    Raises:
        RuntimeError: the backend runs on one device only (NumPy).
    """
    from lamina.ops.dispatch import backend

    b = backend()
    ops = b.distribution
    if ops is None:
        raise RuntimeError(
            f"{what} needs a backend that distributes; the {b.name} backend runs on one "
            f"device only. Backends that distribute: "
            f"{', '.join(sorted(set(STRATEGY_BACKENDS['DataParallel'])))} (set "
            "LAMINA_BACKEND)."
        )
    return ops


def _check_device_type(device_type: str | None) -> str | None:
    if device_type is None:
        return None
    if not isinstance(device_type, str) or device_type.lower() not in _DEVICE_TYPES:
        raise ValueError(
            f"Argument `device_type` must be one of {_DEVICE_TYPES} or None. "
            f"Received: device_type={device_type!r}"
        )
    return device_type.lower()


def list_devices(device_type: str | None = None) -> list[str]:
    """Every device of the job, all processes included, as ``"<type>:<id>"`` strings.

    Args:
        device_type: "cpu", "gpu" or "tpu"; by default the accelerators when there are
            any, else the CPUs.

    Raises:
        RuntimeError: the backend does not distribute (NumPy).

    Example:
        >>> lamina.distribution.list_devices()  # doctest: +SKIP
        ['cpu:0']
    """
    return engine("list_devices").list_devices(_check_device_type(device_type))


def get_device_count(device_type: str | None = None) -> int:
    """How many devices `list_devices(device_type)` returns.

    Example:
        >>> lamina.distribution.get_device_count()  # doctest: +SKIP
        1
    """
    return engine("get_device_count").get_device_count(_check_device_type(device_type))


def _env_int(name: str) -> int | None:
    for prefix in ("LAMINA", "KERAS"):
        raw = os.environ.get(f"{prefix}_DISTRIBUTION_{name}")
        if raw is not None:
            try:
                return int(raw)
            except ValueError:
                raise ValueError(
                    f"Environment variable {prefix}_DISTRIBUTION_{name} must be an int. "
                    f"Received: {raw!r}"
                ) from None
    return None


def initialize(
    job_addresses: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
) -> None:
    """Join a job of several processes (call it first thing in each process).

    Arguments left out are read from ``LAMINA_DISTRIBUTION_JOB_ADDRESSES``,
    ``LAMINA_DISTRIBUTION_NUM_PROCESSES`` and ``LAMINA_DISTRIBUTION_PROCESS_ID`` (or
    Keras' ``KERAS_DISTRIBUTION_*`` names), and then from the variables the engine's own
    launcher sets (``torchrun``'s ``MASTER_ADDR``, ``WORLD_SIZE``, ``RANK``; JAX's cluster
    detection).

    Args:
        job_addresses: ``"host:port"`` of the coordinator (process 0), or every process's
            address separated by commas (the first is the coordinator).
        num_processes: how many processes the job has.
        process_id: this process's index, from 0.

    Raises:
        ValueError: a count or index is not a valid int, or the address list's length is
            not `num_processes`.
        RuntimeError: the backend does not distribute (NumPy).
    """
    if job_addresses is None:
        job_addresses = os.environ.get("LAMINA_DISTRIBUTION_JOB_ADDRESSES") or os.environ.get(
            "KERAS_DISTRIBUTION_JOB_ADDRESSES"
        )
    if num_processes is None:
        num_processes = _env_int("NUM_PROCESSES")
    if process_id is None:
        process_id = _env_int("PROCESS_ID")
    if job_addresses is not None and not isinstance(job_addresses, str):
        raise ValueError(
            "Argument `job_addresses` must be a 'host:port' string (comma-separated for "
            f"several). Received: job_addresses={job_addresses!r}"
        )
    for name, value, low in (("num_processes", num_processes, 1), ("process_id", process_id, 0)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < low
        ):
            raise ValueError(
                f"Argument `{name}` must be an int >= {low}. Received: {name}={value!r}"
            )
    if num_processes is not None and process_id is not None and process_id >= num_processes:
        raise ValueError(
            f"Argument `process_id` must be below `num_processes`. Received: "
            f"process_id={process_id}, num_processes={num_processes}"
        )
    if job_addresses and "," in job_addresses:
        addresses = job_addresses.split(",")
        if num_processes is not None and num_processes != len(addresses):
            raise ValueError(
                f"Argument `job_addresses` lists {len(addresses)} addresses but "
                f"num_processes={num_processes}. Received: job_addresses={job_addresses!r}"
            )
        job_addresses = addresses[0]
    engine("initialize").initialize(job_addresses, num_processes, process_id)


def num_processes() -> int:
    """Processes in the job (1 until `initialize`, and on backends that do not distribute)."""
    from lamina.ops.dispatch import backend

    ops = backend().distribution
    return 1 if ops is None else ops.num_processes()


def process_id() -> int:
    """This process's index in the job (0 until `initialize`)."""
    from lamina.ops.dispatch import backend

    ops = backend().distribution
    return 0 if ops is None else ops.process_id()


def is_process_zero() -> bool:
    """Whether this process writes a job's files and logs: process 0 of a job, or a process
    outside any job (no backend loaded counts as outside)."""
    from lamina.backend.registry import current_if_any

    backend = current_if_any()
    return backend is None or backend.distribution is None or process_id() == 0


def saving_joins_every_process() -> bool:
    """Whether saving must run on every process of the job, not on process 0 alone.

    Under `ModelParallel` across processes a variable may be split between them: reading
    it whole is a gather that every process joins, so each process walks the same save
    (process 0 alone writes the file). Under `DataParallel` every process holds the
    whole model and the others skip saving.
    """
    from lamina.distribution.strategies import ModelParallel, distribution

    return isinstance(distribution(), ModelParallel) and num_processes() > 1


def distribute_tensor(tensor: Any, layout: TensorLayout) -> Any:
    """`tensor` placed on the devices of `layout`'s mesh, split as `layout` says.

    Symbolic tensors pass through unchanged (they hold no values).

    Raises:
        ValueError: `layout` is not a `TensorLayout` with a mesh, or does not fit the
            tensor's rank.
    """
    from lamina.distribution.layouts import TensorLayout
    from lamina.ops.symbolic import SymbolicTensor

    if not isinstance(layout, TensorLayout) or layout.device_mesh is None:
        raise ValueError(
            "Argument `layout` must be a `TensorLayout` with a `device_mesh`. "
            f"Received: layout={layout!r}"
        )
    if isinstance(tensor, SymbolicTensor):
        return tensor
    rank = len(getattr(tensor, "shape", ()))
    if len(layout.axes) != rank:
        raise ValueError(
            f"The layout has {len(layout.axes)} axes but the tensor has rank {rank}. "
            f"Received: layout.axes={layout.axes}, tensor shape={tuple(tensor.shape)}"
        )
    check_divisible(tuple(tensor.shape), layout, "the tensor")
    return engine("distribute_tensor").distribute_tensor(tensor, layout)


def check_divisible(shape: tuple[Any, ...], layout: TensorLayout, what: str) -> None:
    """Refuse a layout splitting a dimension into unequal parts (engines need equal ones).

    Raises:
        ValueError: a split dimension is not a multiple of its mesh axis's size.
    """
    mesh = layout.device_mesh
    if mesh is None:
        return
    for dim, name in zip(shape, layout.axes):
        if name is None or dim is None:
            continue
        parts = mesh.axis_size(name)
        if int(dim) % parts:
            raise ValueError(
                f"The layout {layout.axes} splits a dimension of size {dim} of {what} "
                f"(shape {shape}) over mesh axis {name!r} of {parts} devices; the size must "
                f"be a multiple of {parts}."
            )
