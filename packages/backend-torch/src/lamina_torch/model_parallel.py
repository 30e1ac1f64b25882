"""`ModelParallel` on PyTorch: variables and batches as DTensors (`torch.distributed.tensor`).

A `lamina.distribution.DeviceMesh` becomes a torch `DeviceMesh` over the job's processes,
one device each (``"cpu:3"`` is the process of rank 3); a `TensorLayout` becomes DTensor
placements: ``Shard(dim)`` on each mesh axis a tensor dimension names, ``Replicate()`` on
the others. Every variable created while the strategy is in effect is a DTensor
(replicated where the layout map names none), so the ops of a step meet DTensors only and
torch's sharding propagation inserts the collectives; plain tensors that ops create on the
way (constants) count as replicated. Each process passes its own rows of each global batch,
as under `DataParallel`: the rows are gathered and split again along the batch axis.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.distributed as dist

from lamina import distribution as lamina_distribution
from lamina.backend.kit import variable_layout

if TYPE_CHECKING:
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import DTensor, Placement

_MESHES: dict[Any, DeviceMesh] = {}


def is_dtensor(value: Any) -> bool:
    """Whether `value` is a DTensor. Importing `torch.distributed.tensor` takes most of a
    second, so it is imported only when a strategy needs it; before that none exists."""
    module = sys.modules.get("torch.distributed.tensor")
    return module is not None and isinstance(value, module.DTensor)


def active() -> Any:
    """The `ModelParallel` strategy in effect over a torch process group, or None (none in
    effect, or a mesh of this one process's one device: plain tensors hold everything).

    Raises:
        ValueError: the strategy's mesh spans several devices outside a job.
    """
    current = lamina_distribution.distribution()
    if not isinstance(current, lamina_distribution.ModelParallel):
        return None
    if dist.is_available() and dist.is_initialized():
        return current
    size = current.device_mesh.devices.size
    if size == 1:
        return None
    raise ValueError(
        f"ModelParallel on torch runs one device per process, but this process is in no "
        f"job and the mesh has {size} devices: {list(current.device_mesh.devices.ravel())}. "
        f"Start {size} processes (torchrun --nproc_per_node {size}) and call "
        "`lamina.distribution.initialize()` first."
    )


def mesh_of(device_mesh: Any) -> DeviceMesh:
    """The torch `DeviceMesh` of a `lamina.distribution.DeviceMesh` (cached): device
    ``"<type>:<i>"`` is the process of rank ``i``.

    Raises:
        ValueError: the mesh does not hold one device per process of the job.
    """
    mesh = _MESHES.get(device_mesh)
    if mesh is not None:
        return mesh
    world = dist.get_world_size()
    ranks = [int(str(d).partition(":")[2] or 0) for d in device_mesh.devices.ravel()]
    if sorted(ranks) != list(range(world)):
        raise ValueError(
            f"On torch a mesh holds one device per process of the job ({world}): devices "
            f"'<type>:0' to '<type>:{world - 1}', each once. Received: "
            f"devices={list(device_mesh.devices.ravel())}"
        )
    from torch.distributed.device_mesh import DeviceMesh

    kind = "cuda" if torch.cuda.is_available() else "cpu"
    grid = torch.tensor(ranks, dtype=torch.int64).reshape(device_mesh.shape)
    mesh = _MESHES[device_mesh] = DeviceMesh(kind, grid, mesh_dim_names=device_mesh.axis_names)
    return mesh


def placements_of(layout: Any) -> list[Placement]:
    """One placement per mesh axis: ``Shard(d)`` where tensor dimension ``d`` names the axis."""
    from torch.distributed.tensor import Replicate, Shard

    out: list[Placement] = []
    for name in layout.device_mesh.axis_names:
        dims = [d for d, axis in enumerate(layout.axes) if axis == name]
        out.append(Shard(dims[0]) if dims else Replicate())
    return out


def to_dtensor(tensor: Any, layout: Any, from_rank_zero: bool) -> DTensor:
    """`tensor` (whole, on every process) as a DTensor on `layout`.

    With `from_rank_zero`, process 0's value is scattered (processes may hold different
    values, as unseeded initializers give); otherwise each process keeps its own part.
    """
    from torch.distributed.tensor import distribute_tensor

    if is_dtensor(tensor):
        return tensor.redistribute(mesh_of(layout.device_mesh), placements_of(layout))
    from lamina_torch.core import convert_to_tensor

    return distribute_tensor(
        convert_to_tensor(tensor),
        mesh_of(layout.device_mesh),
        placements_of(layout),
        src_data_rank=0 if from_rank_zero else None,
    )


# --- variables -------------------------------------------------------------------------
def under_layout(variable: Any, initializer: Any) -> Any:
    """`initializer`, made to create only this process's shard where it can.

    Zeros, ones and scalar constants fill each shard alone (no whole tensor anywhere);
    other initializers (random ones draw the whole tensor from one seed) run whole, and
    `place` keeps this process's part of process 0's value.
    """
    if not _fills_elementwise(initializer) or active() is None:
        return initializer

    def sharded(shape: tuple[int, ...], dtype: Any = None) -> Any:
        from torch.distributed.tensor import DTensor, Shard

        layout = variable_layout(variable)
        if layout is None or all(axis is None for axis in layout.axes):
            return initializer(shape, dtype=dtype)
        mesh = mesh_of(layout.device_mesh)
        local = list(shape)
        for axis, placement in enumerate(placements_of(layout)):
            if isinstance(placement, Shard):
                local[placement.dim] //= mesh.size(axis)
        part = initializer(tuple(local), dtype=dtype)
        # The layout divides every split dimension, so the shards give back `shape`.
        return DTensor.from_local(part, mesh, placements_of(layout), run_check=False)

    return sharded


def _fills_elementwise(initializer: Any) -> bool:
    from lamina import initializers

    if isinstance(initializer, (initializers.Zeros, initializers.Ones)):
        return True
    return isinstance(initializer, initializers.Constant) and np.ndim(initializer.value) == 0


def place(variable: Any, value: Any) -> Any:
    """A new variable's value on the layout the strategy gives it (process 0's value).

    Integer and boolean variables the layout leaves whole (seed states, step counters) stay
    plain tensors: every process advances them alike, and the code reading them (a seed's
    ``tolist()``) takes no DTensor.
    """
    if is_dtensor(value) or active() is None:
        return value
    layout = variable_layout(variable)
    if layout is None:
        return value
    whole_layout = all(axis is None for axis in layout.axes)
    if whole_layout and not (value.dtype.is_floating_point or value.dtype.is_complex):
        return value
    return to_dtensor(value, layout, from_rank_zero=True)


def assignable(parameter: Any, value: Any) -> Any:
    """`value` in the placements of `parameter`, ready for ``parameter.copy_``: a plain
    value (weights being loaded, the same on every process) gives each process its part."""
    if not is_dtensor(parameter):
        return value
    from torch.distributed.tensor import distribute_tensor

    mesh, placements = parameter.device_mesh, parameter.placements
    if is_dtensor(value):
        return value if value.placements == placements else value.redistribute(mesh, placements)
    return distribute_tensor(value, mesh, placements, src_data_rank=None)


def whole(value: Any) -> Any:
    """A DTensor gathered whole on every process (a collective: every process calls it);
    other values unchanged."""
    return value.full_tensor() if is_dtensor(value) else value


# --- steps ------------------------------------------------------------------------------
@contextlib.contextmanager
def step_scope() -> Iterator[None]:
    """Where plain tensors that ops create meet DTensors, treat them as replicated."""
    if active() is None:
        yield
        return
    from torch.distributed.tensor.experimental import implicit_replication

    with implicit_replication():
        yield


def distribute_batches(batches: list[Any]) -> list[Any]:
    """Each tensor of each batch as a DTensor split along the strategy's batch axis.

    Each process holds its own rows of the global batch (process order); they are
    gathered, and each process keeps the part of its place on the batch axis.
    """
    current = active()
    if current is None:
        return batches

    def put(x: Any) -> Any:
        if not isinstance(x, torch.Tensor) or is_dtensor(x):
            return x
        whole_batch = _gather_rows(x) if x.ndim else x
        layout = current.get_data_layout(tuple(whole_batch.shape))
        return to_dtensor(whole_batch, layout, from_rank_zero=False)

    from lamina import tree

    return [tree.map_structure(put, batch) for batch in batches]


def _gather_rows(local: torch.Tensor) -> torch.Tensor:
    """Every process's rows, concatenated in process order (counts may differ by a row)."""
    world = dist.get_world_size()
    count = torch.tensor([local.shape[0]], dtype=torch.int64, device=local.device)
    counts = [torch.zeros_like(count) for _ in range(world)]
    dist.all_gather(counts, count)
    sizes = [int(c.item()) for c in counts]
    most = max(sizes)
    padded = local.contiguous()
    if local.shape[0] < most:
        pad = local.new_zeros((most - local.shape[0], *local.shape[1:]))
        padded = torch.cat([padded, pad])
    parts = [torch.empty_like(padded) for _ in range(world)]
    dist.all_gather(parts, padded)
    return torch.cat([part[:n] for part, n in zip(parts, sizes)])


def local_rows(outputs: Any) -> Any:
    """Predictions as this process's rows, as plain tensors: of a global batch of ``n``
    rows, process ``p`` of ``P`` passed rows ``p * n // P`` up to ``(p + 1) * n // P``
    (the cut `fit` makes of a dataset's batches)."""
    if active() is None:
        return outputs
    world, rank = dist.get_world_size(), dist.get_rank()

    def local(x: Any) -> Any:
        if not is_dtensor(x):
            return x
        full = x.full_tensor()
        if full.ndim == 0:
            return full
        rows = full.shape[0]
        return full[rank * rows // world : (rank + 1) * rows // world]

    from lamina import tree

    return tree.map_structure(local, outputs)
