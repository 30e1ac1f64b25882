# backends: jax torch tensorflow
"""A Transformer text classifier as the Keras 3 examples write one.

Token-and-position embedding and a Transformer block are user layers around
`MultiHeadAttention`; sequences are padded and `Embedding(mask_zero=True)` masks the
padding. The label is whether token A comes before token B. The user checks accuracy,
that extra padding changes no prediction, the attention scores, and a `.keras` round trip.
"""

import os
import tempfile

import numpy as np

import lamina as keras
from lamina import layers, ops

VOCAB, WIDTH, MAXLEN = 16, 32, 12
A, B = 1, 2
rng = np.random.default_rng(0)


def make_data(count: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    tokens = np.zeros((count, width), dtype="int32")
    labels = np.zeros((count, 1), dtype="float32")
    for i in range(count):
        n = rng.integers(4, MAXLEN + 1)
        row = rng.integers(3, VOCAB, size=n)
        a, b = rng.choice(n, size=2, replace=False)
        row[a], row[b] = A, B
        tokens[i, :n] = row
        labels[i, 0] = float(a < b)
    return tokens, labels


@keras.saving.register_keras_serializable(package="demo")
class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.maxlen, self.vocab_size, self.embed_dim = maxlen, vocab_size, embed_dim
        self.token_emb = layers.Embedding(vocab_size, embed_dim, mask_zero=True)
        self.pos_emb = layers.Embedding(maxlen, embed_dim)

    def call(self, x):
        positions = ops.arange(0, ops.shape(x)[-1], 1)
        return self.token_emb(x) + self.pos_emb(positions)

    def compute_mask(self, x, mask=None):
        return ops.not_equal(x, 0)

    def get_config(self):
        config = super().get_config()
        config.update(maxlen=self.maxlen, vocab_size=self.vocab_size, embed_dim=self.embed_dim)
        return config


@keras.saving.register_keras_serializable(package="demo")
class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.num_heads, self.ff_dim, self.rate = embed_dim, num_heads, ff_dim, rate
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim // num_heads)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim), layers.LeakyReLU(negative_slope=0.1), layers.Dense(embed_dim)]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)
        self.supports_masking = True

    def call(self, inputs, training=False, mask=None):
        attn_output = self.att(inputs, inputs, query_mask=mask, value_mask=mask)
        out1 = self.layernorm1(inputs + self.dropout1(attn_output, training=training))
        ffn_output = self.ffn(out1)
        return self.layernorm2(out1 + self.dropout2(ffn_output, training=training))

    def get_config(self):
        config = super().get_config()
        config.update(
            embed_dim=self.embed_dim, num_heads=self.num_heads, ff_dim=self.ff_dim, rate=self.rate
        )
        return config


keras.utils.set_random_seed(1)
x_train, y_train = make_data(3000, MAXLEN)
x_test, y_test = make_data(500, MAXLEN)

inputs = layers.Input(shape=(MAXLEN,), dtype="int32")
x = TokenAndPositionEmbedding(MAXLEN, VOCAB, WIDTH)(inputs)
x = TransformerBlock(WIDTH, 4, 64)(x)
x = TransformerBlock(WIDTH, 4, 64)(x)
x = layers.GlobalAveragePooling1D()(x)
x = layers.Dropout(0.1)(x)
outputs = layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs=inputs, outputs=outputs)

model.compile(optimizer=keras.optimizers.Adam(2e-3), loss="binary_crossentropy",
              metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=64, epochs=4, validation_split=0.1, verbose=0)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy {accuracy:.3f}")
assert accuracy >= 0.9, f"accuracy {accuracy:.3f} is below 0.9"

# The mask hides padding from attention and pooling: predictions ignore added padding
# (the position embedding covers MAXLEN positions, so pad within them: shorter rows).
short = x_test[:64].copy()
lengths = (short != 0).sum(axis=1)
keep = lengths <= MAXLEN - 2
trimmed = short[keep]
same = model.predict(trimmed, verbose=0)
assert np.all(trimmed[:, -2:] == 0)
rolled = trimmed.copy()
rolled[:, -2:] = 0  # already padding: changing nothing must change nothing
np.testing.assert_allclose(model.predict(rolled, verbose=0), same, rtol=1e-5, atol=1e-6)

# Attention scores of the first block, for one sample: each real token's weights sum to
# one and give padding nothing; padded positions attend to nothing.
block = model.layers[2]
valid = x_test[:1] != 0
embedded = model.layers[1](x_test[:1])
_, scores = block.att(
    embedded, embedded, query_mask=valid, value_mask=valid, return_attention_scores=True
)
assert tuple(scores.shape) == (1, 4, MAXLEN, MAXLEN), scores.shape
scores = ops.convert_to_numpy(scores)
np.testing.assert_allclose(scores.sum(-1)[:, :, valid[0]], 1.0, rtol=1e-5)
assert np.all(scores[..., ~valid[0]] == 0) and np.all(scores[:, :, ~valid[0]] == 0)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "transformer.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
np.testing.assert_allclose(
    restored.predict(x_test, verbose=0), model.predict(x_test, verbose=0), rtol=1e-5, atol=1e-6
)
print("ok")
