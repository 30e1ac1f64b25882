"""Data-parallel throughput: Lamina's `DataParallel` beside the engine's own data parallelism.

With 1, 2 and 4 workers per backend:
- PyTorch: processes on localhost (gloo, started like `torchrun`: ``MASTER_ADDR``,
  ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``; one intra-op thread each); Lamina `fit` under
  `DataParallel` against a `DistributedDataParallel` loop with `torch.optim.Adam`.
- JAX: one process with that many host devices (``--xla_force_host_platform_device_count``);
  Lamina `fit` under `DataParallel` against a `jax.jit` step whose batch is sharded over a
  `Mesh` (parameters replicated), with optax's Adam.
- TensorFlow: one process with that many logical CPU devices; Lamina `fit` under
  `DataParallel` (a `MirroredStrategy`) against a `MirroredStrategy` custom loop: a
  `tf.function` step that runs the forward and backward pass per replica with
  `strategy.run`, averages the gradients with the replica context's all-reduce and applies
  TensorFlow's fused Adam kernel to every copy, fed by a distributed `tf.data` iterator.
  With one device neither side uses a strategy.

Both sides train the same 784-512-512-10 MLP on 64 rows per worker and step (weak scaling),
and report samples per second of the best of three epochs after a first one that compiles
and warms up; ``LAMINA_BENCH_DISTRIBUTED_STEPS`` sets the steps per epoch (default 40).
`ratio` is Lamina's samples/s ÷ raw's (higher is better, 1.0 is parity), `efficiency` a
side's samples/s with N workers ÷ (N times its samples/s with one); the target is Lamina's
efficiency at least 0.95 of raw's. On a CPU machine the workers share the cores (on a
two-core machine, 4 workers oversubscribe them), so the numbers show Lamina's overhead
over the engine, not how a GPU cluster scales.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from per_backend import installed_backends

PER_WORKER_BATCH = 64
STEPS = int(os.environ.get("LAMINA_BENCH_DISTRIBUTED_STEPS", "40"))
WORKERS = (1, 2, 4)

COMMON = r"""
import json, os, sys, time
import numpy as np

BATCH = int(os.environ["BENCH_BATCH"])
STEPS = int(os.environ["BENCH_STEPS"])
SIDE = os.environ["BENCH_SIDE"]


def data(rows):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 784)).astype("float32")
    y = rng.integers(0, 10, size=(rows,)).astype("int32")
    return x, y


def lamina_seconds(x, y, batch_size):
    import lamina
    from lamina import layers

    model = lamina.Sequential([layers.Input((784,)), layers.Dense(512, activation="relu"),
                               layers.Dense(512, activation="relu"), layers.Dense(10)])
    model.compile(optimizer=lamina.optimizers.Adam(1e-3),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=batch_size, epochs=1, shuffle=False, verbose=0)  # warm-up
    return best_of(lambda: model.fit(x, y, batch_size=batch_size, epochs=1, shuffle=False,
                                     verbose=0))


def best_of(epoch, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        epoch()
        times.append(time.perf_counter() - start)
    return min(times)
"""

TORCH_WORKER = (
    COMMON
    + r"""
import torch
import torch.distributed as dist

world = int(os.environ["WORLD_SIZE"])
x, y = data(BATCH * STEPS)  # this process's rows
if SIDE == "lamina":
    import lamina

    lamina.distribution.initialize()
    with lamina.distribution.DataParallel().scope():
        seconds = lamina_seconds(x, y, BATCH)
else:
    from torch import nn

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                        nn.Linear(512, 10))
    step_net = nn.parallel.DistributedDataParallel(net) if world > 1 else net
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()

    def epoch():
        for i in range(STEPS):
            rows = slice(i * BATCH, (i + 1) * BATCH)
            optimizer.zero_grad()
            loss_fn(step_net(xt[rows]), yt[rows]).backward()
            optimizer.step()

    epoch()
    seconds = best_of(epoch)
    dist.destroy_process_group()
if int(os.environ["RANK"]) == 0:
    print(json.dumps({"seconds": seconds}), flush=True)
"""
)

JAX_WORKER = (
    COMMON
    + r"""
import jax

devices = jax.devices()
batch = BATCH * len(devices)  # the global batch: BATCH rows per device
x, y = data(batch * STEPS)
if SIDE == "lamina":
    import lamina

    with lamina.distribution.DataParallel().scope():
        seconds = lamina_seconds(x, y, batch)
else:
    import jax.numpy as jnp
    import optax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(devices), ("batch",))
    rows_sharding = NamedSharding(mesh, PartitionSpec("batch"))
    replicated = NamedSharding(mesh, PartitionSpec())
    rng = np.random.default_rng(1)
    sizes = [(784, 512), (512, 512), (512, 10)]
    params = [(rng.uniform(-1, 1, s).astype("float32") * np.sqrt(6 / sum(s)),
               np.zeros(s[1], "float32")) for s in sizes]
    params = jax.device_put(params, replicated)
    optimizer = optax.adam(1e-3, eps=1e-7)
    state = jax.device_put(optimizer.init(params), replicated)

    def loss_fn(params, xb, yb):
        h = xb
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        return optax.softmax_cross_entropy_with_integer_labels(h, yb).mean()

    @jax.jit
    def step(params, state, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    def epoch(params, state):
        for i in range(STEPS):
            rows = slice(i * batch, (i + 1) * batch)
            xb = jax.device_put(x[rows], rows_sharding)
            yb = jax.device_put(y[rows], rows_sharding)
            params, state, loss = step(params, state, xb, yb)
        loss.block_until_ready()
        return params, state

    params, state = epoch(params, state)
    seconds = best_of(lambda: epoch(params, state))
print(json.dumps({"seconds": seconds}), flush=True)
"""
)

TENSORFLOW_WORKER = (
    COMMON
    + r"""
import tensorflow as tf

devices = int(os.environ["BENCH_DEVICES"])
cpu = tf.config.list_physical_devices("CPU")[0]  # logical devices exist only if asked first
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * devices)
batch = BATCH * devices  # the global batch: BATCH rows per device
x, y = data(batch * STEPS)
if SIDE == "lamina":
    import lamina

    with lamina.distribution.DataParallel().scope():
        seconds = lamina_seconds(x, y, batch)
else:
    strategy = tf.distribute.get_strategy()  # the default one: no replicas of its own
    if devices > 1:
        names = [d.name for d in tf.config.list_logical_devices("CPU")]
        strategy = tf.distribute.MirroredStrategy(names)
    rng = np.random.default_rng(1)
    sizes = [(784, 512), (512, 512), (512, 10)]
    with strategy.scope():
        params = []
        for s in sizes:
            kernel = (rng.uniform(-1, 1, s) * np.sqrt(6 / sum(s))).astype("float32")
            params += [tf.Variable(kernel), tf.Variable(np.zeros(s[1], "float32"))]
        moments = [(tf.Variable(tf.zeros_like(p)), tf.Variable(tf.zeros_like(p))) for p in params]
        iterations = tf.Variable(0.0)

    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            h = xb
            for i in range(0, len(params), 2):
                h = tf.matmul(h, params[i]) + params[i + 1]
                h = tf.nn.relu(h) if i < len(params) - 2 else h
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(yb, h))
        grads = tape.gradient(loss, params)
        context = tf.distribute.get_replica_context()
        return context.all_reduce(tf.distribute.ReduceOp.MEAN, grads)

    def adam(var, m, v, grad, t):
        tf.raw_ops.ResourceApplyAdam(
            var=var.handle, m=m.handle, v=v.handle, beta1_power=0.9**t, beta2_power=0.999**t,
            lr=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-7, grad=grad)

    @tf.function
    def step(xb, yb):
        grads = strategy.run(replica_step, args=(xb, yb))  # averaged over the replicas
        iterations.assign_add(1.0)
        t = iterations.read_value()
        for var, (m, v), grad in zip(params, moments, grads):
            strategy.extended.update(var, adam, args=(m, v, grad, t))

    rows = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch).repeat()
    batches = iter(strategy.experimental_distribute_dataset(rows))  # one iterator, made once

    def epoch():
        for _ in range(STEPS):
            step(*next(batches))
        iterations.read_value().numpy()  # wait for the last step

    epoch()
    seconds = best_of(epoch)
print(json.dumps({"seconds": seconds}), flush=True)
"""
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _seconds(worker: str, envs: list[dict[str, str]]) -> float:
    """Start one process per entry of `envs` running `worker`; the time process 0 prints."""
    base = {**os.environ, "BENCH_BATCH": str(PER_WORKER_BATCH), "BENCH_STEPS": str(STEPS)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", worker],
            env={**base, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for env in envs
    ]
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, outputs, strict=True):
        if p.returncode:
            raise RuntimeError(f"a benchmark worker failed:\n{err[-3000:]}")
    line = next(s for s in outputs[0][0].splitlines() if s.startswith("{"))
    return float(json.loads(line)["seconds"])


def _torch_envs(side: str, workers: int) -> list[dict[str, str]]:
    port = str(_free_port())
    return [
        {
            "LAMINA_BACKEND": "torch",
            "BENCH_SIDE": side,
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": port,
            "RANK": str(rank),
            "WORLD_SIZE": str(workers),
            "OMP_NUM_THREADS": "1",  # one core per worker, so that N workers use N cores
        }
        for rank in range(workers)
    ]


def _jax_envs(side: str, workers: int) -> list[dict[str, str]]:
    flags = f"--xla_force_host_platform_device_count={workers}"
    return [{"LAMINA_BACKEND": "jax", "BENCH_SIDE": side, "XLA_FLAGS": flags}]


def _tensorflow_envs(side: str, workers: int) -> list[dict[str, str]]:
    return [{"LAMINA_BACKEND": "tensorflow", "BENCH_SIDE": side, "BENCH_DEVICES": str(workers)}]


def bench_distributed() -> Iterator[dict[str, Any]]:
    installed = installed_backends()
    engines = [
        ("torch", TORCH_WORKER, _torch_envs, "DistributedDataParallel"),
        ("jax", JAX_WORKER, _jax_envs, "jax.jit over a Mesh"),
        ("tensorflow", TENSORFLOW_WORKER, _tensorflow_envs, "MirroredStrategy custom loop"),
    ]
    for backend, worker, envs, raw_name in engines:
        if backend not in installed:
            continue
        rates: dict[tuple[str, int], float] = {}
        for workers in WORKERS:
            samples = PER_WORKER_BATCH * STEPS * workers
            for side in ("raw", "lamina"):
                rates[side, workers] = samples / _seconds(worker, envs(side, workers))
            yield {
                "backend": backend,
                "workers": workers,
                "raw": raw_name,
                "lamina_samples_per_s": round(rates["lamina", workers], 1),
                "raw_samples_per_s": round(rates["raw", workers], 1),
                "ratio": round(rates["lamina", workers] / rates["raw", workers], 3),
                "efficiency_lamina": round(
                    rates["lamina", workers] / (workers * rates["lamina", 1]), 3
                ),
                "efficiency_raw": round(rates["raw", workers] / (workers * rates["raw", 1]), 3),
            }
