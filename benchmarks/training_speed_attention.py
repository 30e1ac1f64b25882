"""`fit` speed of a Transformer encoder: Lamina vs the same model written by hand.

Token and position embeddings, 2 encoder blocks (`MultiHeadAttention` with 4 heads,
residuals, `LayerNormalization`, a 2x-wide feed-forward block), average pooling and a
2-class head; sequence 128, model width 128, batch 32, Adam (epsilon 1e-7 both sides),
sparse softmax cross-entropy. The raw side is what a user of each framework writes, with
its fused attention: `scaled_dot_product_attention` in an eager loop with torch.optim on
PyTorch; `jax.nn.dot_product_attention` in a jitted step with optax on JAX; a
`tf.function` step (einsum attention: TensorFlow has no fused kernel) on TensorFlow.
Both sides start from the same weights. Ratios are Lamina / raw; the target is <= 1.10.
When Keras 3 is installed, the same model in Keras runs beside them (`keras_ratio`).

Each side warms up, then `LAMINA_BENCH_REPEATS` (default 3) timed epochs run interleaved;
times are medians. `LAMINA_BENCH_SAMPLES` (default 2048) and `LAMINA_BENCH_SEQ`
(default 128) shrink the run.

Usage: python benchmarks/training_speed_attention.py
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
from lamina import layers, ops

name = lamina.config.backend()
SAMPLES = int(os.environ.get("LAMINA_BENCH_SAMPLES", "2048"))
SEQ = int(os.environ.get("LAMINA_BENCH_SEQ", "128"))
VOCAB, WIDTH, HEADS, FF, BATCH, CLASSES, BLOCKS = 1000, 128, 4, 256, 32, 2, 2
rng = np.random.default_rng(0)
x = rng.integers(1, VOCAB, size=(SAMPLES, SEQ)).astype("int32")
y = rng.integers(0, CLASSES, size=(SAMPLES,)).astype("int32")


def lamina_model(k=lamina):
    # `k` is lamina or keras: the same code builds the same model in both.
    L = k.layers

    class PositionEmbedding(L.Layer):
        def build(self, input_shape):
            self.table = self.add_weight(shape=(SEQ, WIDTH), initializer="random_normal",
                                         name="table")

        def call(self, h):
            return h + self.table.value

    ids = L.Input((SEQ,), dtype="int32")
    h = PositionEmbedding()(L.Embedding(VOCAB, WIDTH)(ids))
    for _ in range(BLOCKS):
        a = L.MultiHeadAttention(num_heads=HEADS, key_dim=WIDTH // HEADS)(h, h)
        h = L.LayerNormalization()(h + a)
        f = L.Dense(WIDTH)(L.Dense(FF, activation="relu")(h))
        h = L.LayerNormalization()(h + f)
    out = L.Dense(CLASSES)(L.GlobalAveragePooling1D()(h))
    return k.Model(ids, out)


def lamina_epoch(model, k=lamina):
    model.compile(optimizer=k.optimizers.Adam(1e-3),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x[:2 * BATCH], y[:2 * BATCH], batch_size=BATCH, epochs=1, verbose=0,
              shuffle=False)
    epoch = lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    return settled(model, epoch) if k is lamina else epoch


def keras_epoch(weights):
    # The same model in Keras 3 from the same weights; None without Keras.
    if keras is None:
        return None
    model = lamina_model(keras)
    model.set_weights(weights)
    return lamina_epoch(model, keras)


# The weights in model order: embedding, position table, per block (q, k, v, output:
# kernel and bias each; norm gamma, beta; dense1, dense2; norm gamma, beta), head.
PER_BLOCK = 16


def unpack(ws):
    emb, pos = ws[0], ws[1]
    blocks = [ws[2 + i * PER_BLOCK: 2 + (i + 1) * PER_BLOCK] for i in range(BLOCKS)]
    return emb, pos, blocks, ws[-2], ws[-1]


if name == "jax":
    import jax, jax.numpy as jnp, optax

    def layer_norm(h, g, b):
        mean = h.mean(-1, keepdims=True)
        var = ((h - mean) ** 2).mean(-1, keepdims=True)
        return (h - mean) / jnp.sqrt(var + 1e-3) * g + b

    def logits_of(params, xb):
        emb, pos, blocks, head_w, head_b = unpack(params)
        h = emb[xb] + pos
        for (qk, qb, kk, kb, vk, vb, ok, ob, g1, b1, d1, c1, d2, c2, g2, b2) in blocks:
            q = jnp.einsum("btd,dnh->btnh", h, qk) + qb
            k = jnp.einsum("btd,dnh->btnh", h, kk) + kb
            v = jnp.einsum("btd,dnh->btnh", h, vk) + vb
            a = jax.nn.dot_product_attention(q, k, v)
            h = layer_norm(h + jnp.einsum("btnh,nhd->btd", a, ok) + ob, g1, b1)
            f = jax.nn.relu(h @ d1 + c1) @ d2 + c2
            h = layer_norm(h + f, g2, b2)
        return h.mean(1) @ head_w + head_b

    def raw_epoch(weights):
        opt = optax.adam(1e-3, eps=1e-7)
        box = [[jnp.asarray(w) for w in weights]]
        box.append(opt.init(box[0]))

        @jax.jit
        def step(params, state, xb, yb):
            def loss_fn(p):
                return optax.softmax_cross_entropy_with_integer_labels(
                    logits_of(p, xb), yb).mean()
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, state = opt.update(grads, state, params)
            return optax.apply_updates(params, updates), state, loss

        def run(n):
            loss = None
            for i in range(0, n, BATCH):
                box[0], box[1], loss = step(box[0], box[1], x[i:i + BATCH], y[i:i + BATCH])
            float(loss)

        run(2 * BATCH)
        return lambda: run(len(x))

elif name == "torch":
    import torch
    import torch.nn.functional as F

    def raw_epoch(weights):
        dev = torch_device()
        params = [torch.nn.Parameter(torch.as_tensor(w).to(dev)) for w in weights]
        opt = torch.optim.Adam(params, lr=1e-3, eps=1e-7)
        xt, yt = torch.as_tensor(x).long(), torch.as_tensor(y).long()

        def logits_of(xb):
            emb, pos, blocks, head_w, head_b = unpack(params)
            h = emb[xb] + pos
            for (qk, qb, kk, kb, vk, vb, ok, ob, g1, b1, d1, c1, d2, c2, g2, b2) in blocks:
                q = (torch.einsum("btd,dnh->bnth", h, qk) + qb[:, None])
                k = (torch.einsum("btd,dnh->bnth", h, kk) + kb[:, None])
                v = (torch.einsum("btd,dnh->bnth", h, vk) + vb[:, None])
                a = F.scaled_dot_product_attention(q, k, v)
                h = F.layer_norm(h + torch.einsum("bnth,nhd->btd", a, ok) + ob, (WIDTH,),
                                 g1, b1, 1e-3)
                f = F.relu(h @ d1 + c1) @ d2 + c2
                h = F.layer_norm(h + f, (WIDTH,), g2, b2, 1e-3)
            return h.mean(1) @ head_w + head_b

        def run(n):
            loss = None
            for i in range(0, n, BATCH):
                opt.zero_grad()
                xb, yb = xt[i:i + BATCH].to(dev), yt[i:i + BATCH].to(dev)
                loss = F.cross_entropy(logits_of(xb), yb)
                loss.backward()
                opt.step()
            float(loss)

        run(2 * BATCH)
        return lambda: run(len(xt))

else:
    import tensorflow as tf

    def raw_epoch(weights):
        vs = [tf.Variable(w) for w in weights]
        m = [tf.Variable(tf.zeros_like(v)) for v in vs]
        v2 = [tf.Variable(tf.zeros_like(v)) for v in vs]
        t = tf.Variable(0.0)

        def layer_norm(h, g, b):
            mean, var = tf.nn.moments(h, [-1], keepdims=True)
            return (h - mean) * tf.math.rsqrt(var + 1e-3) * g + b

        def logits_of(xb):
            emb, pos, blocks, head_w, head_b = unpack(vs)
            h = tf.gather(emb, xb) + pos
            for (qk, qb, kk, kb, vk, vb, ok, ob, g1, b1, d1, c1, d2, c2, g2, b2) in blocks:
                q = tf.einsum("btd,dnh->btnh", h, qk) + qb
                k = tf.einsum("btd,dnh->btnh", h, kk) + kb
                v = tf.einsum("btd,dnh->btnh", h, vk) + vb
                s = tf.nn.softmax(tf.einsum("btnh,bsnh->bnts", q, k) / (WIDTH // HEADS) ** 0.5)
                a = tf.einsum("bnts,bsnh->btnh", s, v)
                h = layer_norm(h + tf.einsum("btnh,nhd->btd", a, ok) + ob, g1, b1)
                f = tf.nn.relu(h @ d1 + c1) @ d2 + c2
                h = layer_norm(h + f, g2, b2)
            return tf.reduce_mean(h, 1) @ head_w + head_b

        @tf.function
        def step(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                    yb, logits_of(xb)))
            grads = tape.gradient(loss, vs)
            t.assign_add(1.0)
            lr = 1e-3 * tf.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            for var, g, mm, vv in zip(vs, grads, m, v2):
                g = tf.convert_to_tensor(g)
                mm.assign(0.9 * mm + 0.1 * g)
                vv.assign(0.999 * vv + 0.001 * g * g)
                var.assign_sub(lr * mm / (tf.sqrt(vv) + 1e-7))
            return loss

        def run(n):
            loss = None
            for i in range(0, n, BATCH):
                loss = step(x[i:i + BATCH], y[i:i + BATCH])
            float(loss)

        run(2 * BATCH)
        return lambda: run(len(x))


model = lamina_model()
weights = [ops.convert_to_numpy(w.value) for w in model.weights]
assert len(weights) == 2 + BLOCKS * PER_BLOCK + 2, len(weights)
compare("fit_epoch_transformer",
        {"lamina": lamina_epoch(model), "raw": raw_epoch(weights), "keras": keras_epoch(weights)},
        samples=SAMPLES, seq=SEQ)
"""


def bench_training_speed_attention() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend that trains; yields its JSON records."""
    return run_per_backend(COMMON + WORKER, ("jax", "torch", "tensorflow"))


if __name__ == "__main__":
    for record in bench_training_speed_attention():
        print(json.dumps({"benchmark": "training_attention", **record}), flush=True)
    sys.exit(0)
