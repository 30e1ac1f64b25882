"""`lamina.distribution` on TensorFlow: `tf.distribute` strategies, one replica per device.

`DataParallel` runs on `tf.distribute.MirroredStrategy` over the devices of one process
(GPUs, or logical CPU devices set up with `tf.config.set_logical_device_configuration`
before TensorFlow starts), and on `tf.distribute.MultiWorkerMirroredStrategy` over the
processes of a job described by ``TF_CONFIG`` (`initialize` writes it from its arguments
when the launcher did not). Variables created while the strategy is in effect are TF's
distributed variables; each step runs once per replica with `strategy.run` on that
replica's rows, the gradients are combined by the strategy's all-reduce and the optimizer
updates every copy at once; metric state is kept per replica and summed when read.

`ModelParallel` is not offered: TensorFlow's only sharding engine for variables, DTensor,
is deprecated, and the strategies above keep whole copies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from lamina import distribution as lamina_distribution
from lamina import tree
from lamina.backend.kit import global_seed_generator

_TIMEOUT_VARIABLE = "LAMINA_DISTRIBUTION_TIMEOUT"
_STATE: dict[str, Any] = {"job": None, "strategies": {}}
"""The multi-worker strategy of the job (made once, by `initialize`) and the mirrored
strategy of each one-process mesh."""


def strategies() -> frozenset[str]:
    return frozenset({"DataParallel"})


# --- devices and processes --------------------------------------------------------------
def _kind(device_type: str | None) -> str:
    if device_type is None:
        return "gpu" if tf.config.list_logical_devices("GPU") else "cpu"
    if device_type in ("cpu", "gpu") and tf.config.list_logical_devices(device_type.upper()):
        return device_type
    raise ValueError(
        f"No {device_type!r} devices are available to TensorFlow. "
        f"Received: device_type={device_type!r}"
    )


def _local_devices(kind: str) -> list[Any]:
    job = _STATE["job"]
    if job is not None:  # the devices the multi-worker strategy runs a replica on
        return list(job.extended.worker_devices)
    return list(tf.config.list_logical_devices(kind.upper()))


def list_devices(device_type: str | None = None) -> list[str]:
    """Every device of the job: in a multi-worker job, the replicas of every worker
    (process `p`'s local devices come after those of processes ``0..p-1``)."""
    kind = _kind(device_type)
    count = len(_local_devices(kind)) * num_processes()
    return [f"{kind}:{i}" for i in range(count)]


def get_device_count(device_type: str | None = None) -> int:
    return len(list_devices(device_type))


def _tf_config() -> dict[str, Any] | None:
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return None
    try:
        config: dict[str, Any] = json.loads(raw)
    except json.JSONDecodeError:
        raise ValueError(f"Environment variable TF_CONFIG is not JSON. Received: {raw!r}") from None
    return config


def initialize(
    job_addresses: str | None, num_processes: int | None, process_id: int | None
) -> None:
    """Start this process's worker of a `MultiWorkerMirroredStrategy` job.

    ``TF_CONFIG``, when the launcher set it, describes the job. Otherwise it is written
    from the arguments: worker `i` listens on the coordinator's port plus `i`. Every
    worker then holds worker 0's global seed state, so `seed=None` draws agree.
    """
    if _STATE["job"] is not None:
        raise RuntimeError(
            "`initialize` was already called in this process: TensorFlow joins one job per process."
        )
    config = _tf_config()
    if config is None:
        if job_addresses is None or num_processes is None or process_id is None:
            raise ValueError(
                "`initialize` on TensorFlow needs the job: set TF_CONFIG, or pass "
                "`job_addresses` ('host:port' of worker 0), `num_processes` and "
                f"`process_id`. Received: job_addresses={job_addresses!r}, "
                f"num_processes={num_processes!r}, process_id={process_id!r}"
            )
        host, _, port = job_addresses.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(
                "Argument `job_addresses` must be 'host:port'. "
                f"Received: job_addresses={job_addresses!r}"
            )
        workers = [f"{host}:{int(port) + i}" for i in range(num_processes)]
        config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": process_id}}
        os.environ["TF_CONFIG"] = json.dumps(config)
    seconds = float(os.environ.get(_TIMEOUT_VARIABLE, "1800"))
    options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=seconds)
    # Made here, first thing: the strategy starts this worker's server and sets up the
    # collectives, which TensorFlow wants before anything else runs.
    job = _STATE["job"] = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    # `seed=None` draws must agree across workers (Dropout's masks, unseeded initializers).
    # The collectives take no uint32 (the seed state's dtype): it travels as int64.
    state = global_seed_generator().state
    (first,) = _from_worker_zero(job, [tf.cast(state.value, tf.int64)])
    state.assign(tf.cast(first, state.value.dtype))


def num_processes() -> int:
    job = _STATE["job"]
    return 1 if job is None else int(job.cluster_resolver.cluster_spec().num_tasks("worker"))


def process_id() -> int:
    job = _STATE["job"]
    return 0 if job is None else int(job.cluster_resolver.task_id)


# --- strategies -------------------------------------------------------------------------
def strategy() -> Any:
    """The `tf.distribute.Strategy` of the `DataParallel` in effect, or None (no strategy,
    or one device of one process: nothing to mirror).

    Raises:
        ValueError: the mesh's devices are not those of the job, or name a device
            TensorFlow does not have.
    """
    current = lamina_distribution.distribution()
    if current is None:
        return None
    mesh = current.device_mesh
    job = _STATE["job"]
    if job is not None:
        if mesh.devices.size != job.num_replicas_in_sync:
            raise ValueError(
                f"In a job of {num_processes()} TensorFlow workers, DataParallel runs one "
                f"replica per device of every worker ({job.num_replicas_in_sync}), but its "
                f"mesh has {mesh.devices.size}: {list(mesh.devices.ravel())}. Use "
                "`DataParallel()` (every device of the job)."
            )
        return job
    if mesh.devices.size == 1:
        return None
    cached = _STATE["strategies"].get(mesh)
    if cached is None:
        names = [_device_name(d) for d in mesh.devices.ravel()]
        cached = _STATE["strategies"][mesh] = tf.distribute.MirroredStrategy(names)
    return cached


def _device_name(device: str) -> str:
    kind, _, index = str(device).partition(":")
    name = f"/device:{kind.upper()}:{int(index or 0)}"
    known = {d.name for d in tf.config.list_logical_devices()}
    if name not in known:
        raise ValueError(
            f"The mesh names device {device!r}, which TensorFlow does not have (it has "
            f"{sorted(known)}). Logical CPU devices are set up with "
            "`tf.config.set_logical_device_configuration` before TensorFlow starts."
        )
    return name


_AGGREGATIONS = {
    "none": tf.VariableAggregation.NONE,
    "mean": tf.VariableAggregation.MEAN,
    "sum": tf.VariableAggregation.SUM,
    "only_first_replica": tf.VariableAggregation.ONLY_FIRST_REPLICA,
}


def new_variable(value: Any, trainable: bool, name: str, variable: Any) -> tf.Variable:
    """A `tf.Variable` holding `value`: a distributed one under a strategy.

    Weights are mirrored and written once for all replicas by the optimizer. Other state
    with a sum or mean `aggregation` (metrics) is kept per replica and combined when read;
    the rest (seed state, moving statistics) is mirrored and written by each replica,
    keeping the first replica's value (the mean for floats).
    """
    current = strategy()
    if current is None:
        return tf.Variable(value, trainable=trainable, name=name)
    aggregation = variable.aggregation
    sync = variable.synchronization
    if sync == "auto":
        sync = "on_read" if not trainable and aggregation in ("sum", "mean") else "on_write"
    if aggregation == "none" and not trainable:
        floating = tf.as_dtype(value.dtype).is_floating
        aggregation = "mean" if floating else "only_first_replica"
    synchronization = {
        "on_read": tf.VariableSynchronization.ON_READ,
        "on_write": tf.VariableSynchronization.ON_WRITE,
        "none": tf.VariableSynchronization.NONE,
    }[sync]
    with current.scope():
        return tf.Variable(
            value,
            trainable=trainable,
            name=name,
            synchronization=synchronization,
            aggregation=_AGGREGATIONS[aggregation],
        )


def check_replica_write(variable: tf.Variable, path: str) -> None:
    """Refuse a weight written by one replica on its own (TensorFlow would let each copy
    drift apart): under `DataParallel` weights are written once for every replica, after
    their gradients are combined.

    Raises:
        RuntimeError: a trainable, mirrored `variable` is assigned in a replica's step.
    """
    if (
        variable.trainable
        and variable.synchronization != tf.VariableSynchronization.ON_READ
        and tf.distribute.has_strategy()
        and tf.distribute.get_replica_context() is not None
    ):
        raise RuntimeError(
            f"DataParallel on TensorFlow: weight {path!r} is written by one replica's step, "
            "which would let the replicas drift apart (a `train_step` of your own that calls "
            "the optimizer?). Under DataParallel the weights are updated once for every "
            "replica after their gradients are combined, as the built-in `train_step` does: "
            "call `super().train_step(data)`, or train without the strategy."
        )


def distribute_tensor(tensor: Any, layout: Any) -> Any:
    """`tensor` where the layout replicates it; split along its batch axis, this process's
    slice (several processes) or one slice per device (a `tf.distribute` per-replica
    value, one process with several devices)."""
    mesh = layout.device_mesh
    split = [axis for axis, name in enumerate(layout.axes) if name is not None]
    tensor = tf.convert_to_tensor(tensor)
    if not split:
        return tensor
    if len(mesh.shape) != 1 or split != [0]:
        raise ValueError(
            f"On TensorFlow a layout may split only the first axis of a tensor, over a "
            f"one-axis mesh; layout {layout.axes} on mesh {mesh!r} does not. ModelParallel "
            "layouts run on the jax backend."
        )
    if num_processes() > 1:
        return _rows(tensor, process_id(), num_processes())
    names = [_device_name(d) for d in mesh.devices.ravel()]
    if len(names) == 1:
        return tensor
    cached = _STATE["strategies"].get(mesh) or tf.distribute.MirroredStrategy(names)
    _STATE["strategies"][mesh] = cached
    return cached.experimental_distribute_values_from_function(
        lambda ctx: _rows(tensor, ctx.replica_id_in_sync_group, len(names))
    )


def _rows(x: Any, part: Any, parts: int) -> Any:
    """Part `part` of `parts` of `x`'s rows, cut at ``i * n // parts``."""
    n = tf.shape(x)[0]
    return x[part * n // parts : (part + 1) * n // parts]


# --- the steps --------------------------------------------------------------------------
def per_replica(model: Any, step: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`model`'s `step` run by every replica of the strategy in effect, or `step` itself
    without one.

    Each replica gets its rows of the batch. The logs are combined afterwards, in the
    cross-replica context: the metrics' results when the logs are theirs (read from the
    state of every replica), else each value's mean over the replicas.
    """
    current = strategy()
    if current is None:
        return step
    check_model(model)
    if num_processes() > 1:
        _from_process_zero(current, model.weights)
    local = len(current.extended.worker_devices)

    def run(batch: Any) -> Any:
        def part(ctx: Any) -> Any:
            index = ctx.replica_id_in_sync_group % local
            return tree.map_structure(
                lambda x: None if x is None else _rows(x, index, local), batch
            )

        with current.scope():
            values = current.experimental_distribute_values_from_function(part)
            logs = current.run(step, args=(values,))
            if not isinstance(logs, dict):
                return current.experimental_local_results(logs)[0]
            results = model.get_metrics_result()
            if set(logs) == set(results):
                return results
            mean = tf.distribute.ReduceOp.MEAN
            return {k: current.reduce(mean, v, axis=None) for k, v in logs.items()}

    return run


def _from_process_zero(current: Any, variables: list[Any]) -> None:
    """Every worker's copies of `variables` set to worker 0's (DDP's rule: weights set
    on one worker after creation, as by `set_weights`, do not split the replicas)."""
    mirrored = [
        v.tf_variable
        for v in variables
        if isinstance(v.tf_variable, tf.distribute.DistributedValues)
        and v.tf_variable.synchronization != tf.VariableSynchronization.ON_READ
    ]
    if not mirrored:
        return
    for v, value in zip(mirrored, _from_worker_zero(current, mirrored)):
        v.assign(value)


def _from_worker_zero(current: Any, values: list[Any]) -> list[Any]:
    """The first replica's `values` (tensors or variables, read in each replica), in
    every worker: an all-reduce to which the other replicas add zeros."""

    def first_replica() -> list[Any]:
        context = tf.distribute.get_replica_context()
        first = tf.equal(context.replica_id_in_sync_group, 0)
        kept = [tf.where(first, tf.convert_to_tensor(v), tf.zeros_like(v)) for v in values]
        return context.all_reduce(tf.distribute.ReduceOp.SUM, kept)

    @tf.function(autograph=False)  # collectives of several workers run traced
    def broadcast() -> list[Any]:
        with current.scope():
            summed = current.run(first_replica)
            return [current.experimental_local_results(value)[0] for value in summed]

    return list(broadcast())


def apply_gradients(optimizer: Any, grads: list[Any], variables: list[Any], rows: Any) -> None:
    """`optimizer.apply(grads, variables)`, from a replica of a strategy: the gradients of
    every replica first, weighted by their rows (the whole batch's mean, even for a last
    batch that does not split evenly), then one update of every copy.

    Outside a strategy's replica it is `optimizer.apply` itself.
    """
    context = tf.distribute.get_replica_context()
    if context is None or not tf.distribute.has_strategy():
        optimizer.apply(grads, variables)
        return
    count = tf.cast(rows, tf.float32)
    weighted = []
    for g, v in zip(grads, variables):
        g = tf.zeros_like(v.value) if g is None else tf.convert_to_tensor(g)
        # A replica with no rows has NaN gradients (a mean over nothing): it adds nothing.
        weighted.append(tf.where(count > 0, g * tf.cast(count, g.dtype), tf.zeros_like(g)))
    summed = context.all_reduce(tf.distribute.ReduceOp.SUM, [*weighted, count])
    total = summed[-1]
    averaged = [s / tf.cast(total, s.dtype) for s in summed[:-1]]
    kept = [a if g is not None else None for a, g in zip(averaged, grads)]

    def update(current: Any, values: list[Any]) -> None:
        first = [None if v is None else current.experimental_local_results(v)[0] for v in values]
        optimizer.apply(first, variables)

    context.merge_call(update, args=(kept,))


_PEER_ERRORS = (
    tf.errors.UnavailableError,
    tf.errors.DeadlineExceededError,
    tf.errors.CancelledError,
    tf.errors.AbortedError,
)


def reporting_faults(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`function` (a step running collectives), whose failure because another worker
    stopped or cannot be reached becomes one clear error; unchanged in a one-process job.

    TensorFlow fails the collective when a peer's connection drops, or after
    ``LAMINA_DISTRIBUTION_TIMEOUT`` seconds.
    """
    if num_processes() == 1:
        return function

    def run(batches: Any) -> Any:
        try:
            return function(batches)
        except _PEER_ERRORS as error:
            raise RuntimeError(
                f"DataParallel: a collective over the job's {num_processes()} TensorFlow "
                f"workers failed in worker {process_id()}: another process stopped or cannot "
                "be reached. Restart the job (`BackupAndRestore` resumes it from its last "
                f"epoch). Cause: {error.message}"
            ) from error

    return run


def check_model(model: Any) -> None:
    """Refuse to train under a strategy a model whose variables are not its own.

    Raises:
        ValueError: the model was created outside the strategy's scope.
    """
    if strategy() is None:
        return
    weights = model.weights
    if weights and not isinstance(weights[0].tf_variable, tf.distribute.DistributedValues):
        raise ValueError(
            f"DataParallel on TensorFlow: model {model.name!r} was created outside the "
            "strategy, so its variables are not mirrored. Create (and compile) the model "
            "inside `with strategy.scope():` or after `set_distribution(strategy)`."
        )
