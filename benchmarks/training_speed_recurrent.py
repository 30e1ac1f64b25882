"""`fit` speed of recurrent models: Lamina's LSTM and GRU vs a hand-written raw loop.

5,000 sequences of 50 steps x 32 features, ``LSTM(64) -> Dense(10)`` (and the same with
``GRU(64)``), batch 64, Adam (epsilon 1e-7 on both sides), sparse softmax cross-entropy;
both sides start from the same weights and report the epoch's mean loss. The raw side is
what a user of each framework writes: `torch.nn.LSTM`/`torch.nn.GRU` in an eager loop with
torch.optim on PyTorch; one `lax.scan` in a jitted step with optax on JAX; a
`tf.function` step looping with `tf.while_loop` (via `tf.scan`) on TensorFlow.
Ratios are Lamina / raw; the target is <= 1.10. When Keras 3 is installed, the same model
in Keras runs beside them (`keras_ratio`, Keras / raw).

Both sides warm up on batches of every shape of the timed epoch, then run
`LAMINA_BENCH_REPEATS` (default 3) timed epochs each, interleaved; the reported times are
medians. `LAMINA_BENCH_SAMPLES` (default 5000) shortens the epochs.

Usage: python benchmarks/training_speed_recurrent.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend
from worker_common import COMMON

WORKER = r"""
import numpy as np
import lamina
from lamina import layers

name = lamina.config.backend()
SAMPLES = int(os.environ.get("LAMINA_BENCH_SAMPLES", "5000"))
STEPS, FEATURES, UNITS, CLASSES, BATCH = 50, 32, 64, 10, 64
rng = np.random.default_rng(0)
x = rng.normal(size=(SAMPLES, STEPS, FEATURES)).astype("float32")
y = rng.integers(0, CLASSES, size=(SAMPLES,)).astype("int32")


def model_of(kind, k=lamina):
    # `k` is lamina or keras: the same code builds the same model in both.
    rnn = k.layers.LSTM(UNITS) if kind == "lstm" else k.layers.GRU(UNITS)
    return k.Sequential([k.layers.Input((STEPS, FEATURES)), rnn, k.layers.Dense(CLASSES)])


def warm_slice(n):
    rem = n % BATCH
    return BATCH + rem if rem else 2 * BATCH


def lamina_epoch(model, k=lamina):
    model.compile(optimizer=k.optimizers.Adam(1e-3),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True))
    w = warm_slice(len(x))
    model.fit(x[:w], y[:w], batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    epoch = lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return settled(model, epoch) if k is lamina else epoch


def keras_epoch(weights, kind):
    # The same model in Keras 3 from the same weights; None without Keras.
    if keras is None:
        return None
    model = model_of(kind, keras)
    model.set_weights(weights)
    return lamina_epoch(model, keras)


def batches():
    for i in range(0, len(x), BATCH):
        yield x[i:i + BATCH], y[i:i + BATCH]


if name == "jax":
    import jax, jax.numpy as jnp, optax

    def logits_of(params, xb, kind):
        kernel, recurrent, bias, dense_w, dense_b = params
        projected = jnp.swapaxes(xb @ kernel + (bias if kind == "lstm" else bias[0]), 0, 1)
        h0 = jnp.zeros((xb.shape[0], UNITS))

        def lstm_step(carry, xt):
            h, c = carry
            i, f, g, o = jnp.split(xt + h @ recurrent, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), None

        def gru_step(h, xt):
            xz, xr, xh = jnp.split(xt, 3, axis=-1)
            hz, hr, hh = jnp.split(h @ recurrent + bias[1], 3, axis=-1)
            z, r = jax.nn.sigmoid(xz + hz), jax.nn.sigmoid(xr + hr)
            h = z * h + (1 - z) * jnp.tanh(xh + r * hh)
            return h, None

        if kind == "lstm":
            (h, _), _ = jax.lax.scan(lstm_step, (h0, h0), projected)
        else:
            h, _ = jax.lax.scan(gru_step, h0, projected)
        return h @ dense_w + dense_b

    def raw_epoch(weights, kind):
        params = [jnp.asarray(w) for w in weights]
        opt = optax.adam(1e-3, eps=1e-7)
        box = [params, opt.init(params)]

        @jax.jit
        def step(params, state, mean, xb, yb):
            def loss_fn(p):
                logits = logits_of(p, xb, kind)
                return optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, state = opt.update(grads, state, params)
            mean = (mean[0] + loss * xb.shape[0], mean[1] + xb.shape[0])
            return optax.apply_updates(params, updates), state, mean

        def run(n):
            mean = (jnp.zeros(()), jnp.zeros(()))
            for i in range(0, n, BATCH):
                box[0], box[1], mean = step(box[0], box[1], mean, x[i:i + BATCH], y[i:i + BATCH])
            float(mean[0] / mean[1])

        run(warm_slice(len(x)))
        return lambda: run(len(x))

elif name == "torch":
    import torch
    import torch.nn.functional as F

    def reorder(w):
        z, r, n = torch.chunk(torch.as_tensor(w), 3, dim=-1)
        return torch.cat([r, z, n], dim=-1)

    def raw_epoch(weights, kind):
        kernel, recurrent, bias, dense_w, dense_b = weights
        rnn = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(
            FEATURES, UNITS, batch_first=True)
        dense = torch.nn.Linear(UNITS, CLASSES)
        with torch.no_grad():
            if kind == "lstm":
                rnn.weight_ih_l0.copy_(torch.as_tensor(kernel).t())
                rnn.weight_hh_l0.copy_(torch.as_tensor(recurrent).t())
                rnn.bias_ih_l0.copy_(torch.as_tensor(bias))
                rnn.bias_hh_l0.zero_()
            else:
                rnn.weight_ih_l0.copy_(reorder(kernel).t())
                rnn.weight_hh_l0.copy_(reorder(recurrent).t())
                rnn.bias_ih_l0.copy_(reorder(bias[0]))
                rnn.bias_hh_l0.copy_(reorder(bias[1]))
            dense.weight.copy_(torch.as_tensor(dense_w).t())
            dense.bias.copy_(torch.as_tensor(dense_b))
        dev = torch_device()
        rnn, dense = rnn.to(dev), dense.to(dev)
        params = [*rnn.parameters(), *dense.parameters()]
        opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7)
        xt, yt = torch.as_tensor(x), torch.as_tensor(y).long()

        def run(n):
            total, count = torch.zeros((), device=dev), 0
            for i in range(0, n, BATCH):
                opt.zero_grad()
                out, _ = rnn(xt[i:i + BATCH].to(dev))
                yb = yt[i:i + BATCH].to(dev)
                loss = F.cross_entropy(dense(out[:, -1]), yb)
                loss.backward()
                opt.step()
                total += loss.detach() * len(yb)
                count += len(yb)
            float(total / count)

        run(2 * BATCH)
        return lambda: run(len(xt))

else:
    import tensorflow as tf

    def raw_epoch(weights, kind):
        vs = [tf.Variable(w) for w in weights]
        m = [tf.Variable(tf.zeros_like(v)) for v in vs]
        v2 = [tf.Variable(tf.zeros_like(v)) for v in vs]
        t = tf.Variable(0.0)
        total, count = tf.Variable(0.0), tf.Variable(0.0)

        def logits_of(xb):
            kernel, recurrent, bias, dense_w, dense_b = vs
            projected = tf.transpose(xb @ kernel + (bias if kind == "lstm" else bias[0]),
                                     [1, 0, 2])
            h0 = tf.zeros((tf.shape(xb)[0], UNITS))

            def lstm_step(carry, xt):
                h, c = carry
                i, f, g, o = tf.split(xt + h @ recurrent, 4, axis=-1)
                c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
                return tf.sigmoid(o) * tf.tanh(c), c

            def gru_step(h, xt):
                xz, xr, xh = tf.split(xt, 3, axis=-1)
                hz, hr, hh = tf.split(h @ recurrent + bias[1], 3, axis=-1)
                z, r = tf.sigmoid(xz + hz), tf.sigmoid(xr + hr)
                return z * h + (1 - z) * tf.tanh(xh + r * hh)

            if kind == "lstm":
                hs, _ = tf.scan(lstm_step, projected, initializer=(h0, h0))
            else:
                hs = tf.scan(gru_step, projected, initializer=h0)
            return hs[-1] @ dense_w + dense_b

        @tf.function
        def step(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    yb, logits_of(xb)))
            n = tf.cast(tf.shape(yb)[0], tf.float32)
            total.assign_add(loss * n)
            count.assign_add(n)
            grads = tape.gradient(loss, vs)
            t.assign_add(1.0)
            lr = 1e-3 * tf.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            for var, g, mm, vv in zip(vs, grads, m, v2):
                mm.assign(0.9 * mm + 0.1 * g)
                vv.assign(0.999 * vv + 0.001 * g * g)
                var.assign_sub(lr * mm / (tf.sqrt(vv) + 1e-7))

        def run(n):
            total.assign(0.0)
            count.assign(0.0)
            for i in range(0, n, BATCH):
                step(x[i:i + BATCH], y[i:i + BATCH])
            float(total / count)

        run(warm_slice(len(x)))
        return lambda: run(len(x))


for kind in ("lstm", "gru"):
    model = model_of(kind)
    weights = [w.numpy() for w in model.weights]
    compare(f"fit_epoch_{kind}", {"lamina": lamina_epoch(model), "raw": raw_epoch(weights, kind),
                                  "keras": keras_epoch(weights, kind)}, samples=SAMPLES)
"""


def bench_training_speed_recurrent() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend that trains; yields its JSON records."""
    return run_per_backend(COMMON + WORKER, ("jax", "torch", "tensorflow"))


if __name__ == "__main__":
    for record in bench_training_speed_recurrent():
        print(json.dumps({"benchmark": "training_recurrent", **record}), flush=True)
    sys.exit(0)
