"""Forward latency and `fit` speed: a Lamina model vs a hand-written raw loop, per backend.

Both sides run the same math in the same process: a 784-512-512-10 MLP (and a small CNN)
trained with Adam on synthetic data, batch 128. The raw side is what a user of each
framework would write without Lamina: a jitted step with optax on JAX, an eager step with
torch.optim on PyTorch, a `tf.function` step on TensorFlow. Ratios are Lamina / raw.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

WORKER = r"""
import json, os, sys, time
import numpy as np
import lamina
from lamina import layers, ops

name = lamina.config.backend()
SAMPLES = int(os.environ.get("LAMINA_BENCH_SAMPLES", "60000"))
CNN_SAMPLES = SAMPLES // 6
BATCH = 128
rng = np.random.default_rng(0)
x_mlp = rng.normal(size=(SAMPLES, 784)).astype("float32")
y_mlp = rng.integers(0, 10, size=(SAMPLES,)).astype("int32")
x_cnn = rng.normal(size=(CNN_SAMPLES, 28, 28, 1)).astype("float32")
y_cnn = rng.integers(0, 10, size=(CNN_SAMPLES,)).astype("int32")


def mlp():
    return lamina.Sequential([layers.Input((784,)), layers.Dense(512, activation="relu"),
                              layers.Dense(512, activation="relu"), layers.Dense(10)])


def cnn():
    return lamina.Sequential([layers.Input((28, 28, 1)),
                              layers.Conv2D(16, 3, activation="relu"), layers.MaxPooling2D(2),
                              layers.Conv2D(32, 3, activation="relu"),
                              layers.GlobalAveragePooling2D(), layers.Dense(10)])


def lamina_epoch(model, x, y):
    model.compile(optimizer=lamina.optimizers.Adam(1e-3),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x[:BATCH * 2], y[:BATCH * 2], batch_size=BATCH, epochs=1, verbose=0)  # warm up
    start = time.perf_counter()
    model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return time.perf_counter() - start


def lamina_forward(model, x):
    xb = ops.convert_to_tensor(x[:32])
    for _ in range(5):
        model(xb)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(50):
            out = model(xb)
        ops.convert_to_numpy(out)
        best = min(best, (time.perf_counter() - start) / 50)
    return best


def weights_of(model):
    return [w.numpy() for w in model.weights]


def batches(x, y):
    for i in range(0, len(x), BATCH):
        yield x[i:i + BATCH], y[i:i + BATCH]


if name == "jax":
    import jax, jax.numpy as jnp, optax

    def forward(params, xb, conv):
        h = xb
        for i, (w, b) in enumerate(params):
            if conv and w.ndim == 4:
                h = jax.nn.relu(jax.lax.conv_general_dilated(
                    h, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")) + b)
                if i == 0:
                    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1),
                                              (1, 2, 2, 1), "VALID")
                else:
                    h = h.mean(axis=(1, 2))
            else:
                h = h @ w + b
                if i < len(params) - 1:
                    h = jax.nn.relu(h)
        return h

    def raw_epoch(weights, x, y, conv):
        params = [(jnp.asarray(weights[i]), jnp.asarray(weights[i + 1]))
                  for i in range(0, len(weights), 2)]
        opt = optax.adam(1e-3)
        state = opt.init(params)

        @jax.jit
        def step(params, state, xb, yb):
            def loss_fn(p):
                logits = forward(p, xb, conv)
                return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, state = opt.update(grads, state, params)
            return optax.apply_updates(params, updates), state, loss

        for xb, yb in batches(x[:BATCH * 2], y[:BATCH * 2]):
            step(params, state, xb, yb)
        start = time.perf_counter()
        for xb, yb in batches(x, y):
            params, state, loss = step(params, state, xb, yb)
        loss.block_until_ready()
        return time.perf_counter() - start

    def raw_forward(weights, x):
        params = [(jnp.asarray(weights[i]), jnp.asarray(weights[i + 1]))
                  for i in range(0, len(weights), 2)]
        fwd = jax.jit(lambda p, xb: forward(p, xb, False))
        xb = jnp.asarray(x[:32])
        fwd(params, xb).block_until_ready()
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(50):
                out = fwd(params, xb)
            out.block_until_ready()
            best = min(best, (time.perf_counter() - start) / 50)
        return best

elif name == "torch":
    import torch
    import torch.nn.functional as F

    def build(weights, conv):
        ps = [torch.nn.Parameter(torch.as_tensor(w).clone()) for w in weights]
        def forward(xb):
            h = xb
            pairs = [(ps[i], ps[i + 1]) for i in range(0, len(ps), 2)]
            for i, (w, b) in enumerate(pairs):
                if conv and w.ndim == 4:
                    h = F.relu(F.conv2d(h, w.permute(3, 2, 0, 1)) + b[None, :, None, None])
                    h = F.max_pool2d(h, 2) if i == 0 else h.mean(dim=(2, 3))
                else:
                    h = h @ w + b
                    if i < len(pairs) - 1:
                        h = F.relu(h)
            return h
        return ps, forward

    def raw_epoch(weights, x, y, conv):
        ps, forward = build(weights, conv)
        opt = torch.optim.Adam(ps, lr=1e-3)
        xt = torch.as_tensor(x.transpose(0, 3, 1, 2).copy() if conv else x)
        yt = torch.as_tensor(y).long()
        start = time.perf_counter()
        for i in range(0, len(xt), BATCH):
            opt.zero_grad()
            loss = F.cross_entropy(forward(xt[i:i + BATCH]), yt[i:i + BATCH])
            loss.backward()
            opt.step()
        return time.perf_counter() - start

    def raw_forward(weights, x):
        _, forward = build(weights, False)
        xb = torch.as_tensor(x[:32])
        best = float("inf")
        with torch.no_grad():
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(50):
                    forward(xb)
                best = min(best, (time.perf_counter() - start) / 50)
        return best

else:
    import tensorflow as tf

    def build(weights, conv):
        vs = [tf.Variable(w) for w in weights]
        def forward(xb):
            h = xb
            pairs = [(vs[i], vs[i + 1]) for i in range(0, len(vs), 2)]
            for i, (w, b) in enumerate(pairs):
                if conv and len(w.shape) == 4:
                    h = tf.nn.relu(tf.nn.conv2d(h, w, 1, "VALID") + b)
                    h = tf.nn.max_pool2d(h, 2, 2, "VALID") if i == 0 else tf.reduce_mean(h, [1, 2])
                else:
                    h = h @ w + b
                    if i < len(pairs) - 1:
                        h = tf.nn.relu(h)
            return h
        return vs, forward

    def raw_epoch(weights, x, y, conv):
        vs, forward = build(weights, conv)
        m = [tf.Variable(tf.zeros_like(v)) for v in vs]
        v2 = [tf.Variable(tf.zeros_like(v)) for v in vs]
        t = tf.Variable(0.0)

        @tf.function
        def step(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    yb, forward(xb)))
            grads = tape.gradient(loss, vs)
            t.assign_add(1.0)
            lr = 1e-3 * tf.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            for var, g, mm, vv in zip(vs, grads, m, v2):
                mm.assign(0.9 * mm + 0.1 * g)
                vv.assign(0.999 * vv + 0.001 * g * g)
                var.assign_sub(lr * mm / (tf.sqrt(vv) + 1e-7))
            return loss

        for xb, yb in batches(x[:BATCH * 2], y[:BATCH * 2]):
            step(xb, yb)
        start = time.perf_counter()
        for xb, yb in batches(x, y):
            loss = step(xb, yb)
        float(loss)
        return time.perf_counter() - start

    def raw_forward(weights, x):
        _, forward = build(weights, False)
        fwd = tf.function(forward)
        xb = tf.constant(x[:32])
        fwd(xb)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(50):
                out = fwd(xb)
            out.numpy()
            best = min(best, (time.perf_counter() - start) / 50)
        return best


def report(kind, lam, raw, unit):
    print(json.dumps({"backend": name, "measure": kind, f"lamina_{unit}": round(lam, 4),
                      f"raw_{unit}": round(raw, 4), "ratio": round(lam / raw, 3)}), flush=True)


model = mlp()
report("forward_mlp_batch32", lamina_forward(model, x_mlp), raw_forward(weights_of(model), x_mlp),
       "s")
model = mlp()
w0 = weights_of(model)
report("fit_epoch_mlp", lamina_epoch(model, x_mlp, y_mlp), raw_epoch(w0, x_mlp, y_mlp, False), "s")
model = cnn()
w0 = weights_of(model)
report("fit_epoch_cnn", lamina_epoch(model, x_cnn, y_cnn), raw_epoch(w0, x_cnn, y_cnn, True), "s")
"""


def bench_training_speed() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend; yields its JSON records."""
    names = {ep.name for ep in importlib.metadata.entry_points(group="lamina.backends")}
    for backend in ("jax", "torch", "tensorflow"):
        if backend not in names:
            continue
        out = subprocess.run(
            [sys.executable, "-c", WORKER],
            env={**os.environ, "LAMINA_BACKEND": backend},
            capture_output=True,
            text=True,
            check=True,
        )
        for line in out.stdout.strip().splitlines():
            if line.startswith("{"):
                yield json.loads(line)
