"""`lamina.distribution` on PyTorch: `torch.distributed` processes, one replica each.

`DataParallel` follows DDP: `initialize` joins the process group (gloo on CPU, NCCL on
CUDA) as ``torchrun`` describes it, the first train step broadcasts every weight from
process 0, and each step averages the gradients of all processes (one all-reduce per
dtype) before the optimizer runs, so every replica takes the same update. Each process
feeds its own rows of each global batch.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

from lamina import distribution as lamina_distribution
from lamina.backend.kit import global_seed_generator
from lamina_torch import model_parallel

_TIMEOUT_VARIABLE = "LAMINA_DISTRIBUTION_TIMEOUT"


def strategies() -> frozenset[str]:
    return frozenset({"DataParallel", "ModelParallel"})


def _kind(device_type: str | None) -> str:
    if device_type is None:
        return "gpu" if torch.cuda.is_available() else "cpu"
    if device_type == "gpu" and torch.cuda.is_available():
        return "gpu"
    if device_type == "cpu":
        return "cpu"
    raise ValueError(
        f"No {device_type!r} devices are available to torch. Received: device_type={device_type!r}"
    )


def list_devices(device_type: str | None = None) -> list[str]:
    """One device per process of the job (the replica each holds), by global rank; before
    `initialize`, this process's devices."""
    kind = _kind(device_type)
    if dist.is_available() and dist.is_initialized():
        count = dist.get_world_size()
    else:
        count = torch.cuda.device_count() if kind == "gpu" else 1
    return [f"{kind}:{i}" for i in range(count)]


def get_device_count(device_type: str | None = None) -> int:
    return len(list_devices(device_type))


def initialize(
    job_addresses: str | None, num_processes: int | None, process_id: int | None
) -> None:
    env = os.environ
    if job_addresses is None and "MASTER_ADDR" in env:  # set by torchrun
        job_addresses = f"{env['MASTER_ADDR']}:{env.get('MASTER_PORT', '29500')}"
    if num_processes is None:
        num_processes = int(env.get("WORLD_SIZE", "1"))
    if process_id is None:
        process_id = int(env.get("RANK", "0"))
    if job_addresses is None:
        raise ValueError(
            "`initialize` needs the coordinator's 'host:port': pass `job_addresses`, set "
            "LAMINA_DISTRIBUTION_JOB_ADDRESSES, or start the processes with torchrun. "
            "Received: job_addresses=None"
        )
    cuda = torch.cuda.is_available()
    if cuda:
        local = int(env.get("LOCAL_RANK", process_id % max(torch.cuda.device_count(), 1)))
        torch.cuda.set_device(local)
    seconds = float(env.get(_TIMEOUT_VARIABLE, "1800"))
    dist.init_process_group(
        backend="nccl" if cuda else "gloo",
        init_method=f"tcp://{job_addresses}",
        world_size=num_processes,
        rank=process_id,
        timeout=timedelta(seconds=seconds),
    )
    atexit.register(_leave_job)
    # `seed=None` draws must agree across processes: under ModelParallel each process
    # draws what it holds as a replicated value (dropout masks).
    state = global_seed_generator().state
    value = state.value.detach().to(torch.int64).clone()
    value = value.cuda() if cuda else value  # NCCL broadcasts device tensors only
    dist.broadcast(value, src=0)
    state.assign(value.to(state.value.dtype))


def _leave_job() -> None:
    """Close the process group before the interpreter tears down: gloo's threads, still
    running at exit, abort the process ("terminate called without an active exception")
    after the program itself has finished."""
    if dist.is_initialized():
        dist.destroy_process_group()


def num_processes() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def process_id() -> int:
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def distribute_tensor(tensor: Any, layout: Any) -> Any:
    """Under `ModelParallel` in a job, `tensor` as a DTensor on `layout` (a DTensor moved
    to it); otherwise this process's part of `tensor`: all of it where the layout
    replicates, its slice along an axis split over the processes."""
    if model_parallel.active() is not None or model_parallel.is_dtensor(tensor):
        return model_parallel.to_dtensor(tensor, layout, from_rank_zero=False)
    mesh = layout.device_mesh
    world = num_processes()
    out = tensor
    for axis, name in enumerate(layout.axes):
        if name is None:
            continue
        if len(mesh.shape) != 1 or mesh.shape[0] != world:
            raise ValueError(
                f"On torch a layout may split a tensor only over a one-axis mesh of one "
                f"device per process ({world}); mesh {mesh!r} is not. Layouts over "
                "several mesh axes need `ModelParallel` in a job of one process per device."
            )
        out = torch.tensor_split(out, world, dim=axis)[process_id()]
    return out


# --- the train step's collectives ------------------------------------------------------
def replicas() -> int:
    """How many processes average their gradients (1: no `DataParallel` over processes;
    under `ModelParallel`, DTensors carry their own collectives).

    Raises:
        ValueError: the strategy's mesh does not have one device per process.
    """
    current = lamina_distribution.distribution()
    if current is None or isinstance(current, lamina_distribution.ModelParallel):
        return 1
    count = num_processes()
    if current.device_mesh.devices.size != count:
        raise ValueError(
            f"On torch, DataParallel keeps one replica per process: its mesh needs one device "
            f"per process ({count}), but it has {current.device_mesh.devices.size}: "
            f"{list(current.device_mesh.devices.ravel())}. Start one process per device "
            "(torchrun --nproc_per_node N) and call `lamina.distribution.initialize()`."
        )
    return count


def sync_replicas(model: Any) -> None:
    """Every weight of `model` set to process 0's (DDP does this when it wraps a module)."""
    if replicas() == 1:
        return
    tensors = [v.value.data for v in model.weights]
    with torch.no_grad():
        for bucket in _buckets(tensors):
            flat = torch.cat([t.reshape(-1) for t in bucket])
            _collective("weight broadcast", dist.broadcast, flat, src=0)
            _unflatten_into(flat, bucket)


def average_gradients(grads: list[Any], variables: list[Any]) -> list[Any]:
    """The gradients averaged over the processes (None stays None)."""
    count = replicas()
    if count == 1:
        return grads
    filled = [g if g is not None else torch.zeros_like(v.value) for g, v in zip(grads, variables)]
    with torch.no_grad():
        for bucket in _buckets(filled):
            flat = torch.cat([t.reshape(-1) for t in bucket])
            _collective("gradient all-reduce", dist.all_reduce, flat, op=dist.ReduceOp.SUM)
            flat.div_(count)
            _unflatten_into(flat, bucket)
    return [f if g is not None else None for f, g in zip(filled, grads)]


def _collective(what: str, run: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run a collective; a peer that died or hung becomes one clear error, not a hang
    (gloo and NCCL fail a collective whose peer is gone, or after the group's timeout)."""
    try:
        run(*args, **kwargs)
    except RuntimeError as error:  # torch.distributed.DistBackendError is one
        raise RuntimeError(
            f"DataParallel: the {what} over the job's {num_processes()} processes failed in "
            f"process {process_id()}: another process stopped or cannot be reached. Restart "
            f"the job (`BackupAndRestore` resumes it from its last epoch). Cause: {error}"
        ) from error


def _buckets(tensors: list[Any]) -> list[list[Any]]:
    by_dtype: dict[Any, list[Any]] = {}
    for t in tensors:
        by_dtype.setdefault((t.dtype, t.device), []).append(t)
    return list(by_dtype.values())


def _unflatten_into(flat: Any, bucket: list[Any]) -> None:
    offset = 0
    for t in bucket:
        n = t.numel()
        t.copy_(flat[offset : offset + n].view_as(t))
        offset += n


def across_replicas(model: Any, results: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`results()` computed from the metric state of all processes.

    Each metric variable is combined as its `aggregation` says ("sum" summed, "mean"
    averaged, "only_first_replica" taken from process 0, "none" left local) into the
    variables for the call, which then get their local values back: every process logs
    the same numbers, and callbacks that act on them (early stopping) agree.
    """
    count = replicas()
    variables = [v for v in model.metrics_variables if v.aggregation != "none"]
    if count == 1 or not variables:
        return results()
    tensors = [v.value.data for v in variables]
    saved = [t.clone() for t in tensors]
    with torch.no_grad():
        summed = [t for v, t in zip(variables, tensors) if v.aggregation in ("sum", "mean")]
        for bucket in _buckets(summed):
            flat = torch.cat([t.reshape(-1) for t in bucket])
            _collective("metric all-reduce", dist.all_reduce, flat, op=dist.ReduceOp.SUM)
            _unflatten_into(flat, bucket)
        for v, t in zip(variables, tensors):
            if v.aggregation == "mean":
                t.copy_(t / count)
            elif v.aggregation == "only_first_replica":
                _collective("metric broadcast", dist.broadcast, t, src=0)
    try:
        out = results()
        return {k: r.detach().clone() if isinstance(r, torch.Tensor) else r for k, r in out.items()}
    finally:
        with torch.no_grad():
            for t, s in zip(tensors, saved):
                t.copy_(s)
