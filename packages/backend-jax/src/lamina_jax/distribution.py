"""`lamina.distribution` on JAX: `jax.sharding` meshes and `jax.distributed` processes.

A `DeviceMesh` becomes a `jax.sharding.Mesh`, a `TensorLayout` a `NamedSharding`. A
variable created while a strategy is in effect runs its initializer jitted with the
layout as output sharding, so each device computes only its shard. The train step keeps
every state value (weights, optimizer slots, metrics) on its layout, and each batch is
assembled from this process's rows with `jax.make_array_from_process_local_data`; XLA
(GSPMD) inserts the collectives.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import jax
import numpy as np
from jax._src import config as _jax_config
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from lamina import distribution as lamina_distribution
from lamina.backend.kit import SeedStateScope, global_seed_generator, variable_layout

_MESHES: dict[Any, Mesh] = {}


def strategies() -> frozenset[str]:
    return frozenset({"DataParallel", "ModelParallel"})


def _devices(device_type: str | None) -> list[Any]:
    try:
        return list(jax.devices(device_type))
    except RuntimeError as error:  # no such platform in this jax build
        raise ValueError(
            f"No {device_type!r} devices are available to JAX ({error}). "
            f"Received: device_type={device_type!r}"
        ) from None


def list_devices(device_type: str | None = None) -> list[str]:
    return [f"{d.platform}:{d.id}" for d in _devices(device_type)]


def get_device_count(device_type: str | None = None) -> int:
    return len(_devices(device_type))


def initialize(
    job_addresses: str | None, num_processes: int | None, process_id: int | None
) -> None:
    # How long to wait for the other processes to join (JAX's default: 300 s).
    seconds = int(float(os.environ.get("LAMINA_DISTRIBUTION_TIMEOUT", "300")))
    jax.distributed.initialize(
        coordinator_address=job_addresses,
        num_processes=num_processes,
        process_id=process_id,
        initialization_timeout=seconds,
    )
    # `seed=None` draws must agree across processes, or replicated variables would differ.
    state = global_seed_generator().state
    state.assign(np.asarray(multihost_utils.broadcast_one_to_all(np.asarray(state.value))))


def num_processes() -> int:
    return int(jax.process_count())


def process_id() -> int:
    return int(jax.process_index())


def _device(name: str) -> Any:
    kind, _, index = str(name).partition(":")
    for device in jax.devices(kind):
        if device.id == int(index or 0):
            return device
    raise ValueError(f"The mesh names device {name!r}, which JAX does not have.")


def mesh_of(device_mesh: Any) -> Mesh:
    """The `jax.sharding.Mesh` of a `lamina.distribution.DeviceMesh` (cached)."""
    mesh = _MESHES.get(device_mesh)
    if mesh is None:
        devices = np.vectorize(_device, otypes=[object])(device_mesh.devices)
        mesh = _MESHES[device_mesh] = Mesh(devices, device_mesh.axis_names)
    return mesh


def sharding_of(layout: Any) -> NamedSharding:
    """The `NamedSharding` of a `lamina.distribution.TensorLayout`."""
    return NamedSharding(mesh_of(layout.device_mesh), PartitionSpec(*layout.axes))


def distribute_tensor(tensor: Any, layout: Any) -> Any:
    sharding = sharding_of(layout)
    if isinstance(tensor, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(tensor, sharding)
    return jax.device_put(tensor, sharding)


# --- variables -------------------------------------------------------------------------
def under_layout(variable: Any, initializer: Any) -> Any:
    """`initializer`, run jitted onto the variable's layout when a strategy splits it.

    The layout is read when the core calls the initializer (the variable's path is set
    by then), and each device computes only its shard. Unseeded random initializers draw
    from the global seed state, carried in and out of the jitted call.
    """
    if not callable(initializer) or lamina_distribution.distribution() is None:
        return initializer

    def sharded(shape: tuple[int, ...], dtype: Any = None) -> Any:
        layout = variable_layout(variable)
        if layout is None:
            return initializer(shape, dtype=dtype)
        sharding = variable.sharding = sharding_of(layout)
        if all(axis is None for axis in layout.axes):
            # Replicated: every device holds it whole anyway, so `place` copies the
            # eager value out (no compile per variable).
            return initializer(shape, dtype=dtype)
        seed_state = global_seed_generator().state

        def run(seed: Any) -> tuple[Any, Any]:
            with _traced_constants(), SeedStateScope(seed) as seeds:
                value = initializer(shape, dtype=dtype)
            return jax.numpy.asarray(value, dtype=value.dtype), seeds.value

        replicated = NamedSharding(sharding.mesh, PartitionSpec())
        try:
            value, seed = jax.jit(run, out_shardings=(sharding, replicated))(
                np.asarray(seed_state.value)
            )
        except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
            # An initializer that reads concrete values cannot be traced: run it eagerly.
            return jax.device_put(initializer(shape, dtype=dtype), sharding)
        seed_state.assign(np.asarray(seed))
        return value

    return sharded


def _traced_constants() -> AbstractContextManager[Any]:
    """Stage ops on constants into the trace again.

    `JaxVariable` creates its value under `jax.ensure_compile_time_eval` (a layer may
    build inside a trace), which would evaluate a seeded initializer eagerly, whole, on
    one device, while `jax.jit` traces it. The switch is not public: without it, the
    initializer still runs, only not sharded from the start.
    """
    state = getattr(_jax_config, "eager_constant_folding", None)
    return state(False) if callable(state) else contextlib.nullcontext()


def place(variable: Any, value: Any) -> Any:
    """`value` on the variable's layout (taken from the strategy at creation)."""
    sharding = getattr(variable, "sharding", None)
    if sharding is None and lamina_distribution.distribution() is not None:
        layout = variable_layout(variable)
        if layout is not None:
            sharding = variable.sharding = sharding_of(layout)
    if sharding is None or isinstance(value, jax.core.Tracer):
        return value
    if getattr(value, "sharding", None) == sharding:
        return value
    if not sharding.is_fully_addressable and not _is_global(value):
        value = np.asarray(value)  # the same host value in every process
    return jax.device_put(value, sharding)


def _is_global(value: Any) -> bool:
    return isinstance(value, jax.Array) and not value.is_fully_addressable


# --- data and steps ---------------------------------------------------------------------
def distribute_batches(batches: list[Any]) -> list[Any]:
    """Each array of each batch split along its batch dimension as the strategy says.

    In a job of several processes each process passes its own rows and the global batch
    is their concatenation, in process order, whatever the mesh. Where process ``p`` of
    ``P`` holds the ``p``-th of ``P`` equal parts of the batch axis, each process's rows
    go straight to its devices (`jax.make_array_from_process_local_data`); on other
    meshes (a batch axis that does not span the processes, as on a ``(1, 2)`` mesh of
    two processes) the processes' rows are gathered first, and every process places the
    global batch. A batch that does not divide over the batch axis (the last, short
    one) is replicated instead.

    Raises:
        ValueError: in a multi-process job whose batch axis spans the processes, this
            process's rows do not divide over its devices along that axis.
    """
    current = lamina_distribution.distribution()
    if current is None:
        return batches
    whole = jax.process_count() == 1  # each process holds the global batches
    if not whole and not _rows_follow_processes(
        mesh_of(current.device_mesh), current.batch_dim_name
    ):
        batches, whole = _gathered(batches), True

    def put(x: Any) -> Any:
        if x is None or not hasattr(x, "shape"):
            return x
        layout = current.get_data_layout(tuple(x.shape))
        sharding = sharding_of(layout)
        if whole:
            if np.ndim(x) and x.shape[0] % _batch_shards(sharding, layout) != 0:
                sharding = NamedSharding(sharding.mesh, PartitionSpec())
            return jax.device_put(x, sharding)
        local = np.asarray(x)
        if local.ndim and layout.axes and layout.axes[0] is not None:
            local_shards = _batch_shards(sharding, layout) // jax.process_count()
            if local_shards and local.shape[0] % local_shards:
                raise ValueError(
                    f"This process's batch has {local.shape[0]} rows, which do not divide "
                    f"over its {local_shards} devices along the batch axis "
                    f"{layout.axes[0]!r}. Use a per-process batch size that they divide."
                )
        return jax.make_array_from_process_local_data(sharding, local)

    return [jax.tree.map(put, batch, is_leaf=lambda v: v is None) for batch in batches]


def _batch_shards(sharding: NamedSharding, layout: Any) -> int:
    axis = layout.axes[0] if layout.axes else None
    return 1 if axis is None else int(sharding.mesh.shape[axis])


def _rows_follow_processes(mesh: Mesh, axis: str | None) -> bool:
    """Whether process ``p`` of ``P`` holds exactly the ``p``-th of ``P`` equal parts of
    `mesh`'s `axis` (every device at those positions, whatever the other axes): then each
    process's own rows are the rows its devices hold. Read from the mesh alone, so every
    process reaches the same answer (the other path runs a collective)."""
    count = jax.process_count()
    size = 1 if axis is None else int(mesh.shape[axis])
    if axis is None or size % count:
        return False
    along = np.moveaxis(mesh.devices, list(mesh.axis_names).index(axis), 0)
    return all(
        device.process_index == position * count // size
        for position, devices in enumerate(along)
        for device in np.ravel(devices)
    )


def _gathered(batches: list[Any]) -> list[Any]:
    """`batches` (this process's rows of each) as the global batches, the same in every
    process: every process's rows, in process order. Row counts may differ between the
    processes (a last batch cut one row apart), so they are gathered first and each
    process's rows padded to the largest. Collectives: every process calls it."""
    leaves, treedef = jax.tree.flatten(batches)
    arrays = [i for i, v in enumerate(leaves) if hasattr(v, "shape") and np.ndim(v)]
    if not arrays:
        return batches
    local = [np.asarray(leaves[i]) for i in arrays]
    counts = np.asarray(
        multihost_utils.process_allgather(np.asarray([len(a) for a in local]))
    )  # (processes, arrays)
    padded = [
        np.concatenate([a, np.zeros((m - len(a), *a.shape[1:]), a.dtype)]) if m > len(a) else a
        for a, m in zip(local, counts.max(axis=0))
    ]
    parts = multihost_utils.process_allgather(padded)  # each (processes, most, ...)
    for column, (i, part) in enumerate(zip(arrays, parts)):
        rows = [np.asarray(part[p, : counts[p, column]]) for p in range(len(counts))]
        leaves[i] = np.concatenate(rows)
    return list(jax.tree.unflatten(treedef, leaves))


def train_jit(step: Callable[..., Any]) -> Callable[..., Any]:
    """`jax.jit(step, donate_argnums=0)` for ``step(state, seed, batches) -> (logs, state,
    seed)``, with every new state value kept on the layout its old value had."""
    if lamina_distribution.distribution() is None:
        return jax.jit(step, donate_argnums=0)
    compiled: dict[Any, Callable[..., Any]] = {}

    def run(state: Any, seed: Any, batches: Any) -> Any:
        leaves, treedef = jax.tree.flatten(state)
        shardings = tuple(getattr(a, "sharding", None) for a in leaves)
        key = (treedef, shardings)
        jitted = compiled.get(key)
        if jitted is None:

            def constrained(state: Any, seed: Any, batches: Any) -> Any:
                logs, new_state, new_seed = step(state, seed, batches)
                new_leaves, new_def = jax.tree.flatten(new_state)
                kept = [
                    jax.lax.with_sharding_constraint(v, s)
                    if isinstance(s, NamedSharding) and v.shape == old.shape
                    else v
                    for v, s, old in zip(new_leaves, shardings, leaves)
                ]
                return logs, jax.tree.unflatten(new_def, kept), new_seed

            jitted = compiled[key] = jax.jit(constrained, donate_argnums=0)
        return jitted(state, _host_seed(seed), batches)

    return run


def eval_jit(pure: Callable[..., Any]) -> Callable[..., Any]:
    """`jax.jit(pure, static_argnums=3)` for ``pure(state, seed, batches, collect)``."""
    jitted = jax.jit(pure, static_argnums=3)
    if lamina_distribution.distribution() is None:
        return jitted

    def run(state: Any, seed: Any, batches: Any, collect: bool) -> Any:
        return jitted(state, _host_seed(seed), batches, collect)

    return run


def _host_seed(seed: Any) -> Any:
    # The seed state may sit on one device of this process; every process holds the same
    # value, so it goes in as a host value (replicated over the mesh).
    return np.asarray(seed) if jax.process_count() > 1 else seed


def local_outputs(outputs: Any) -> Any:
    """Predictions as this process's rows: of a global batch of ``n`` rows, process ``p``
    of ``P`` passed rows ``p * n // P`` up to ``(p + 1) * n // P`` (the cut `fit` makes of
    a dataset's batches), and gets their predictions back. Where its devices hold exactly
    those rows they are read there; otherwise the array is gathered whole first (a
    collective, chosen from the array's sharding, the same in every process)."""
    count, rank = jax.process_count(), jax.process_index()

    def local(x: Any) -> Any:
        if not _is_global(x) or x.ndim == 0:
            return x
        rows = x.shape[0]
        start, stop = rank * rows // count, (rank + 1) * rows // count
        if x.is_fully_replicated:
            return np.asarray(x.addressable_data(0))[start:stop]
        if not _holds_own_rows(x.sharding, x.shape):
            return np.asarray(multihost_utils.process_allgather(x))[start:stop]
        parts: dict[int, Any] = {}  # replicas along other mesh axes hold the same rows
        for shard in x.addressable_shards:
            parts.setdefault(shard.index[0].start or 0, shard.data)
        return np.concatenate([np.asarray(parts[k]) for k in sorted(parts)], axis=0)

    return jax.tree.map(local, outputs)


def _holds_own_rows(sharding: Any, shape: tuple[int, ...]) -> bool:
    """Whether the devices of each process ``p`` of ``P`` hold, whole along every other
    dimension, exactly rows ``p * n // P`` up to ``(p + 1) * n // P`` of an array of
    `shape` (``n`` rows) laid out by `sharding`."""
    count, rows = jax.process_count(), shape[0]
    blocks: dict[int, set[tuple[int, int]]] = {p: set() for p in range(count)}
    for device, index in sharding.devices_indices_map(shape).items():
        if any(s.indices(n) != (0, n, 1) for s, n in zip(index[1:], shape[1:])):
            return False
        start, stop, _ = index[0].indices(rows)
        blocks[device.process_index].add((start, stop))
    for p, held in blocks.items():
        edge = p * rows // count
        for start, stop in sorted(held):
            if start != edge:
                return False
            edge = stop
        if edge != (p + 1) * rows // count:
            return False
    return True
