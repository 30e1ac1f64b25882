"""Inference latency at batch 32: `predict`, `predict_on_batch` and `model(x)` vs the raw
compiled forward, per backend.

The model is a 784-512-512-10 MLP. The raw side is the forward pass a user of each
framework writes: ``jax.jit`` on JAX, an eager forward under ``torch.no_grad`` on PyTorch
(``torch_compile_s`` also reports ``torch.compile`` of it), a ``tf.function`` on TensorFlow.
`predict` and `predict_on_batch` take and return NumPy arrays, so their raw side does too
(``raw_numpy_s``: NumPy in, forward, NumPy out); ``model(x)`` takes a backend tensor, so its
raw side does too (``raw_tensor_s``; the output is read once per timed block, as a user
reading a result would). Ratios are Lamina / raw; on PyTorch `compiled_ratio` divides by
``torch.compile``'s forward instead. When Keras 3 is installed, the same model in Keras
runs the same three calls beside them (``keras_s``, ``keras_ratio``: Keras / raw).

Every side warms up first (tracing is not timed), then `LAMINA_BENCH_REPEATS` (default 5)
timed blocks of `LAMINA_BENCH_CALLS` (default 200) calls run interleaved; times per call are
medians over the blocks. `cpu_ratio` compares process CPU time per call (a busy machine
disturbs it less than the wall-clock `ratio`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend
from worker_common import COMMON

WORKER = r"""
import numpy as np
import lamina
from lamina import layers, ops

name = lamina.config.backend()
REPEATS = int(os.environ.get("LAMINA_BENCH_REPEATS", "5"))
CALLS = int(os.environ.get("LAMINA_BENCH_CALLS", "200"))
x = np.random.default_rng(0).normal(size=(32, 784)).astype("float32")
model = lamina.Sequential([layers.Input((784,)), layers.Dense(512, activation="relu"),
                           layers.Dense(512, activation="relu"), layers.Dense(10)])
weights = [w.numpy() for w in model.weights]
pairs = [(weights[i], weights[i + 1]) for i in range(0, len(weights), 2)]
extra = {}


def mlp(params, h, relu):
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = relu(h)
    return h


if name == "jax":
    import jax, jax.numpy as jnp

    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in pairs]

    fwd = jax.jit(lambda params, xb: mlp(params, xb, jax.nn.relu))

    def raw_numpy():
        return np.asarray(fwd(params, x))

    xt = jnp.asarray(x)
    raw_tensor = lambda: fwd(params, xt)
    read = lambda out: out.block_until_ready()

elif name == "torch":
    import torch

    DEV = torch_device()
    ps = [(torch.as_tensor(w).to(DEV), torch.as_tensor(b).to(DEV)) for w, b in pairs]

    def forward(xb):
        return mlp(ps, xb, torch.relu)

    def raw_numpy():
        with torch.no_grad():
            return forward(torch.from_numpy(x).to(DEV)).cpu().numpy()

    xt = torch.as_tensor(x).to(DEV)

    def raw_tensor():
        with torch.no_grad():
            return forward(xt)

    read = lambda out: out.detach().cpu().numpy()
    try:
        compiled = torch.compile(forward)

        def raw_compiled():
            with torch.no_grad():
                return compiled(xt)

        extra["torch_compile"] = raw_compiled
    except Exception:  # no compiler on this machine: the eager forward is the raw limit
        pass

else:
    import tensorflow as tf

    vs = [(tf.Variable(w), tf.Variable(b)) for w, b in pairs]

    fwd = tf.function(lambda xb: mlp(vs, xb, tf.nn.relu))

    raw_numpy = lambda: fwd(x).numpy()
    xt = tf.constant(x)
    raw_tensor = lambda: fwd(xt)
    read = lambda out: out.numpy()

xl = ops.convert_to_tensor(x)
if keras is not None:
    kmodel = keras.Sequential([keras.layers.Input((784,)),
                               keras.layers.Dense(512, activation="relu"),
                               keras.layers.Dense(512, activation="relu"),
                               keras.layers.Dense(10)])
    kmodel.set_weights(weights)
    kx = keras.ops.convert_to_tensor(x)
    extra["keras_predict"] = lambda: kmodel.predict(x, batch_size=32, verbose=0)
    extra["keras_predict_on_batch"] = lambda: kmodel.predict_on_batch(x)
    extra["keras_call"] = lambda: kmodel(kx)
sides = {
    "raw_numpy": raw_numpy,
    "raw_tensor": raw_tensor,
    "predict": lambda: model.predict(x, batch_size=32, verbose=0),
    "predict_on_batch": lambda: model.predict_on_batch(x),
    "call": lambda: model(xl),
    **extra,
}
np.testing.assert_allclose(sides["predict"](), raw_numpy(), rtol=1e-4, atol=1e-5)


def block(fn):
    # (wall, process CPU) seconds per call; CPU time is steadier on a busy machine.
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(CALLS):
        out = fn()
    if not isinstance(out, np.ndarray):
        read(out)
    return (time.perf_counter() - start) / CALLS, (time.process_time() - cpu) / CALLS


for fn in sides.values():  # warm up: traces and compiles are not timed
    for _ in range(20):
        fn()
    block(fn)
times = {k: [] for k in sides}
for _ in range(REPEATS):
    for key, fn in sides.items():
        times[key].append(block(fn))
med = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
cpu = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
for measure, raw in (("predict", "raw_numpy"), ("predict_on_batch", "raw_numpy"),
                     ("call", "raw_tensor")):
    record = {
        "backend": name, "measure": measure, "batch": 32, "calls": CALLS,
        "lamina_s": round(med[measure], 7), f"{raw}_s": round(med[raw], 7),
        "ratio": round(med[measure] / med[raw], 3),
        "cpu_ratio": round(cpu[measure] / cpu[raw], 3),
    }
    if "torch_compile" in med:
        record["torch_compile_s"] = round(med["torch_compile"], 7)
        record["compiled_ratio"] = round(med[measure] / med["torch_compile"], 3)
    if f"keras_{measure}" in med:
        record["keras_s"] = round(med[f"keras_{measure}"], 7)
        record["keras_ratio"] = round(med[f"keras_{measure}"] / med[raw], 3)
    print(json.dumps(record), flush=True)
"""


def bench_inference_latency() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend; yields its JSON records."""
    return run_per_backend(COMMON + WORKER, ("jax", "torch", "tensorflow"))
