"""End to end: a 2-block Transformer encoder learns "does token A come before token B".

Token and position embeddings, `MultiHeadAttention`, `LayerNormalization`, residuals and a
feed-forward block, trained by each backend's own `fit`; kept small so it runs in CI.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability

SEQ, VOCAB, WIDTH = 10, 12, 32
A, B = 1, 2


class PositionEmbedding(layers.Layer):
    """Adds a learned vector per position (the token embedding's mask passes through)."""

    def __init__(self, length: int, width: int, **kwargs):
        super().__init__(**kwargs)
        self.length, self.width = length, width
        self.supports_masking = True

    def build(self, input_shape=None):
        self.table = self.add_weight(
            shape=(self.length, self.width), initializer="random_normal", name="table"
        )

    def call(self, x):
        return ops.add(x, self.table.value)

    def get_config(self):
        return {**super().get_config(), "length": self.length, "width": self.width}


def encoder_block(x, heads: int, width: int):
    attended = layers.MultiHeadAttention(num_heads=heads, key_dim=width // heads)(x, x)
    x = layers.LayerNormalization()(layers.Add()([x, attended]))
    ff = layers.Dense(width * 2, activation="relu")(x)
    ff = layers.Dense(width)(ff)
    return layers.LayerNormalization()(layers.Add()([x, ff]))


def transformer_classifier() -> lamina.Model:
    ids = layers.Input((SEQ,), dtype="int32")
    x = layers.Embedding(VOCAB, WIDTH)(ids)
    x = PositionEmbedding(SEQ, WIDTH)(x)
    for _ in range(2):
        x = encoder_block(x, heads=4, width=WIDTH)
    x = layers.GlobalAveragePooling1D()(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return lamina.Model(ids, out)


def order_task(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random filler tokens with one A and one B at random places; label: A before B."""
    rng = np.random.default_rng(seed)
    x = rng.integers(3, VOCAB, size=(n, SEQ)).astype("int32")
    for row in x:
        i, j = rng.choice(SEQ, size=2, replace=False)
        row[i], row[j] = A, B
    y = (np.argmax(x == A, axis=1) < np.argmax(x == B, axis=1)).astype("float32")
    return x, y[:, None]


@pytest.mark.requires(Capability.TRAINING)
def test_transformer_encoder_learns_token_order():
    lamina.utils.set_random_seed(0)
    x, y = order_task(3072, seed=1)
    x_test, y_test = order_task(1024, seed=2)
    model = transformer_classifier()
    model.compile(
        optimizer=lamina.optimizers.Adam(2e-3), loss="binary_crossentropy", metrics=["accuracy"]
    )
    model.fit(x, y, batch_size=64, epochs=3, verbose=0)
    _, accuracy = model.evaluate(x_test, y_test, batch_size=256, verbose=0)
    assert accuracy >= 0.95, f"test accuracy {accuracy:.3f} < 0.95"
