"""Forward latency and `fit` speed: a Lamina model vs a hand-written raw loop, per backend.

Both sides run the same math in the same process: a 784-512-512-10 MLP (and a small CNN)
trained with Adam (epsilon 1e-7 on both sides) on synthetic data, batch 128, reporting the
epoch's mean loss (as `fit` does). The raw side is what a user of each
framework would write without Lamina: a jitted step with optax on JAX, an eager step with
torch.optim on PyTorch, a `tf.function` step on TensorFlow. Ratios are Lamina / raw.

Both sides warm up on batches of every shape the timed epoch has, then run
`LAMINA_BENCH_REPEATS` (default 3) timed epochs each, interleaved; the reported times are
medians. `cpu_ratio` compares process CPU time, which a busy machine disturbs less than wall
time. `LAMINA_BENCH_SAMPLES` (default 60000) shortens the epochs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend

WORKER = r"""
import json, os, statistics, sys, time
import numpy as np
import lamina
from lamina import layers, ops

name = lamina.config.backend()
SAMPLES = int(os.environ.get("LAMINA_BENCH_SAMPLES", "60000"))
CNN_SAMPLES = SAMPLES // 6
REPEATS = int(os.environ.get("LAMINA_BENCH_REPEATS", "3"))
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


def warm_slice(n):
    # Warm-up batches have every shape the timed epoch has (full batches and the last one),
    # so neither side compiles or retraces inside the timed epoch.
    rem = n % BATCH
    return BATCH + rem if rem else 2 * BATCH


def lamina_epoch(model, x, y):
    # Compile and warm up; the returned function runs one epoch.
    model.compile(optimizer=lamina.optimizers.Adam(1e-3),
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    w = warm_slice(len(x))
    model.fit(x[:w], y[:w], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)


def lamina_forward(model, x):
    # The returned function runs 50 forward passes on one batch of 32 and reads the result.
    xb = ops.convert_to_tensor(x[:32])
    for _ in range(5):
        model(xb)

    def run():
        for _ in range(50):
            out = model(xb)
        ops.convert_to_numpy(out)
    return run


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
        opt = optax.adam(1e-3, eps=1e-7)
        box = [params, opt.init(params)]

        @jax.jit
        def step(params, state, mean, xb, yb):
            def loss_fn(p):
                logits = forward(p, xb, conv)
                return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, state = opt.update(grads, state, params)
            # The epoch's mean loss, as Lamina's fit reports it.
            mean = (mean[0] + loss * xb.shape[0], mean[1] + xb.shape[0])
            return optax.apply_updates(params, updates), state, mean

        def run(x, y):
            mean = (jnp.zeros(()), jnp.zeros(()))
            for xb, yb in batches(x, y):
                box[0], box[1], mean = step(box[0], box[1], mean, xb, yb)
            float(mean[0] / mean[1])

        w = warm_slice(len(x))
        run(x[:w], y[:w])
        return lambda: run(x, y)

    def raw_forward(weights, x):
        params = [(jnp.asarray(weights[i]), jnp.asarray(weights[i + 1]))
                  for i in range(0, len(weights), 2)]
        fwd = jax.jit(lambda p, xb: forward(p, xb, False))
        xb = jnp.asarray(x[:32])
        fwd(params, xb).block_until_ready()

        def run():
            for _ in range(50):
                out = fwd(params, xb)
            out.block_until_ready()
        return run

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
        opt = torch.optim.Adam(ps, lr=1e-3, eps=1e-7)
        xt = torch.as_tensor(x.transpose(0, 3, 1, 2).copy() if conv else x)
        yt = torch.as_tensor(y).long()

        def run(n):
            total, count = torch.zeros(()), 0
            for i in range(0, n, BATCH):
                opt.zero_grad()
                yb = yt[i:i + BATCH]
                loss = F.cross_entropy(forward(xt[i:i + BATCH]), yb)
                loss.backward()
                opt.step()
                total += loss.detach() * len(yb)  # the epoch's mean loss, as fit reports it
                count += len(yb)
            float(total / count)

        run(2 * BATCH)
        return lambda: run(len(xt))

    def raw_forward(weights, x):
        _, forward = build(weights, False)
        xb = torch.as_tensor(x[:32])

        def run():
            with torch.no_grad():
                for _ in range(50):
                    forward(xb)
        run()
        return run

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
        total, count = tf.Variable(0.0), tf.Variable(0.0)

        @tf.function
        def step(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    yb, forward(xb)))
            n = tf.cast(tf.shape(yb)[0], tf.float32)
            total.assign_add(loss * n)  # the epoch's mean loss, as fit reports it
            count.assign_add(n)
            grads = tape.gradient(loss, vs)
            t.assign_add(1.0)
            lr = 1e-3 * tf.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            for var, g, mm, vv in zip(vs, grads, m, v2):
                mm.assign(0.9 * mm + 0.1 * g)
                vv.assign(0.999 * vv + 0.001 * g * g)
                var.assign_sub(lr * mm / (tf.sqrt(vv) + 1e-7))
            return loss

        def run(x, y):
            total.assign(0.0)
            count.assign(0.0)
            for xb, yb in batches(x, y):
                step(xb, yb)
            float(total / count)

        w = warm_slice(len(x))
        run(x[:w], y[:w])
        return lambda: run(x, y)

    def raw_forward(weights, x):
        _, forward = build(weights, False)
        fwd = tf.function(forward)
        xb = tf.constant(x[:32])
        fwd(xb)

        def run():
            for _ in range(50):
                out = fwd(xb)
            out.numpy()
        return run


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(kind, lam, raw, per=1):
    # Both sides REPEATS times, interleaved; medians of wall and CPU seconds.
    lw, lc, rw, rc = [], [], [], []
    for _ in range(REPEATS):
        w, c = timed(lam)
        lw.append(w / per)
        lc.append(c / per)
        w, c = timed(raw)
        rw.append(w / per)
        rc.append(c / per)
    med = statistics.median
    print(json.dumps({
        "backend": name, "measure": kind, "samples": SAMPLES, "repeats": REPEATS,
        "lamina_s": round(med(lw), 5), "raw_s": round(med(rw), 5),
        "ratio": round(med(lw) / med(rw), 3), "cpu_ratio": round(med(lc) / med(rc), 3),
    }), flush=True)


model = mlp()
compare("forward_mlp_batch32", lamina_forward(model, x_mlp),
        raw_forward(weights_of(model), x_mlp), per=50)
model = mlp()
w0 = weights_of(model)
compare("fit_epoch_mlp", lamina_epoch(model, x_mlp, y_mlp), raw_epoch(w0, x_mlp, y_mlp, False))
model = cnn()
w0 = weights_of(model)
compare("fit_epoch_cnn", lamina_epoch(model, x_cnn, y_cnn), raw_epoch(w0, x_cnn, y_cnn, True))
"""


def bench_training_speed() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend that trains; yields its JSON records."""
    return run_per_backend(WORKER, ("jax", "torch", "tensorflow"))
