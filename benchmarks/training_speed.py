"""Forward latency and `fit` speed: a Lamina model vs a hand-written raw loop (and Keras 3).

Both sides run the same math in the same process: a 784-512-512-10 MLP (and a small CNN)
trained with Adam (epsilon 1e-7 on both sides) on synthetic data, batch 128, reporting the
epoch's mean loss (as `fit` does). The raw side is what a user of each
framework would write without Lamina: a jitted step with optax on JAX, an eager step with
torch.optim on PyTorch, a `tf.function` step on TensorFlow. Ratios are Lamina / raw; when
Keras 3 is installed, the same model in Keras runs beside them (`keras_ratio`, Keras / raw).

Both sides warm up on batches of every shape the timed epoch has, then run
`LAMINA_BENCH_REPEATS` (default 3) timed epochs each, interleaved; the reported times are
medians. `cpu_ratio` compares process CPU time, which a busy machine disturbs less than wall
time. `LAMINA_BENCH_SAMPLES` (default 60000) shortens the epochs. Run by `memory.py`, the
worker trains one side only and reports its peak resident memory instead.
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
SAMPLES = int(os.environ.get("LAMINA_BENCH_SAMPLES", "60000"))
CNN_SAMPLES = SAMPLES // 6
BATCH = 128
rng = np.random.default_rng(0)
x_mlp = rng.normal(size=(SAMPLES, 784)).astype("float32")
y_mlp = rng.integers(0, 10, size=(SAMPLES,)).astype("int32")
x_cnn = rng.normal(size=(CNN_SAMPLES, 28, 28, 1)).astype("float32")
y_cnn = rng.integers(0, 10, size=(CNN_SAMPLES,)).astype("int32")


def mlp(k=lamina):
    # `k` is lamina or keras: the same code builds the same model in both.
    return k.Sequential([k.layers.Input((784,)), k.layers.Dense(512, activation="relu"),
                         k.layers.Dense(512, activation="relu"), k.layers.Dense(10)])


def cnn(k=lamina):
    L = k.layers
    return k.Sequential([L.Input((28, 28, 1)),
                         L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(2),
                         L.Conv2D(32, 3, activation="relu"),
                         L.GlobalAveragePooling2D(), L.Dense(10)])


def warm_slice(n):
    # Warm-up batches have every shape the timed epoch has (full batches and the last one),
    # so neither side compiles or retraces inside the timed epoch.
    rem = n % BATCH
    return BATCH + rem if rem else 2 * BATCH


def lamina_epoch(model, x, y, k=lamina):
    # Compile and warm up; the returned function runs one epoch.
    model.compile(optimizer=k.optimizers.Adam(1e-3),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True))
    w = warm_slice(len(x))
    model.fit(x[:w], y[:w], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    epoch = lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return settled(model, epoch) if k is lamina else epoch


def keras_epoch(make_model, weights, x, y):
    # The same model in Keras 3 from the same weights; None without Keras.
    if keras is None:
        return None
    model = make_model(keras)
    model.set_weights(weights)
    return lamina_epoch(model, x, y, keras)


def lamina_forward(model, x, k=lamina):
    # The returned function runs 50 forward passes on one batch of 32 and reads the result.
    xb = k.ops.convert_to_tensor(x[:32])
    for _ in range(5):
        model(xb)

    def run():
        for _ in range(50):
            out = model(xb)
        k.ops.convert_to_numpy(out)
    return run


def keras_forward(weights, x):
    if keras is None:
        return None
    model = mlp(keras)
    model.set_weights(weights)
    return lamina_forward(model, x, keras)


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

    DEV = torch_device()

    def build(weights, conv):
        ps = [torch.nn.Parameter(torch.as_tensor(w).clone().to(DEV)) for w in weights]
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
            total, count = torch.zeros((), device=DEV), 0
            for i in range(0, n, BATCH):
                opt.zero_grad()
                yb = yt[i:i + BATCH].to(DEV)
                loss = F.cross_entropy(forward(xt[i:i + BATCH].to(DEV)), yb)
                loss.backward()
                opt.step()
                total += loss.detach() * len(yb)  # the epoch's mean loss, as fit reports it
                count += len(yb)
            float(total / count)

        run(2 * BATCH)
        return lambda: run(len(xt))

    def raw_forward(weights, x):
        _, forward = build(weights, False)
        xb = torch.as_tensor(x[:32]).to(DEV)

        def run():
            with torch.no_grad():
                for _ in range(50):
                    out = forward(xb)
            out.cpu()
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


def sides_of(make_model, x, y, conv):
    # Each side's set-up (returning its epoch function), from one model's initial weights.
    model = make_model()
    w0 = weights_of(model)
    return {"lamina": lambda: lamina_epoch(model, x, y),
            "raw": lambda: raw_epoch(w0, x, y, conv),
            "keras": lambda: keras_epoch(make_model, w0, x, y)}


side = memory_side()
if side:
    report_memory("fit_epoch_mlp", side, sides_of(mlp, x_mlp, y_mlp, False)[side])
else:
    model = mlp()
    w0 = weights_of(model)
    compare("forward_mlp_batch32", {"lamina": lamina_forward(model, x_mlp),
                                    "raw": raw_forward(w0, x_mlp),
                                    "keras": keras_forward(w0, x_mlp)}, per=50, samples=32)
    for kind, make_model, x, y, conv in (("mlp", mlp, x_mlp, y_mlp, False),
                                         ("cnn", cnn, x_cnn, y_cnn, True)):
        sides = {k: setup() for k, setup in sides_of(make_model, x, y, conv).items()}
        compare(f"fit_epoch_{kind}", sides, samples=len(x))
"""


def bench_training_speed() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend that trains; yields its JSON records."""
    return run_per_backend(COMMON + WORKER, ("jax", "torch", "tensorflow"))
