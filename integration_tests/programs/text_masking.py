# backends: jax torch tensorflow
"""Variable-length token sequences: Embedding(mask_zero=True) and masked pooling.

The label is whether a sequence's mean token id is above the middle of the vocabulary,
which padding zeros would bias if the mask were ignored. A user layer takes the mask
as an argument. Predictions must not depend on how much padding follows a sequence.
"""

import numpy as np

import lamina as keras
from lamina import ops

VOCAB = 40
rng = np.random.default_rng(0)


def make_sequences(count: int, width: int) -> tuple[np.ndarray, np.ndarray, list]:
    lengths = rng.integers(3, 13, size=count)
    tokens = np.zeros((count, width), dtype="int32")
    rows = []
    for i, n in enumerate(lengths):
        row = rng.integers(1, VOCAB, size=n)
        tokens[i, :n] = row
        rows.append(row)
    labels = np.array([row.mean() > VOCAB / 2 for row in rows], dtype="float32")
    return tokens, labels, rows


class MaskedMax(keras.layers.Layer):
    """Max over the time steps the mask keeps."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.max(inputs, axis=1)
        keep = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        return ops.max(inputs * keep - (1.0 - keep) * 1e9, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None


keras.utils.set_random_seed(2)
x_train, y_train, _ = make_sequences(1200, 16)
x_test, y_test, test_rows = make_sequences(300, 16)

tokens = keras.Input(shape=(None,), dtype="int32")
embedded = keras.layers.Embedding(VOCAB, 8, mask_zero=True, name="embedding")(tokens)
mean_pooled = keras.layers.GlobalAveragePooling1D()(embedded)
max_pooled = MaskedMax()(embedded)
hidden = keras.layers.Dense(16, activation="relu")(
    keras.layers.Concatenate()([mean_pooled, max_pooled])
)
output = keras.layers.Dense(1, activation="sigmoid")(hidden)
model = keras.Model(tokens, output)
model.compile(
    optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=["accuracy"]
)
history = model.fit(x_train, y_train, epochs=10, batch_size=64, verbose=0)

assert history.history["loss"][-1] < history.history["loss"][0] * 0.6, history.history["loss"]
accuracy = model.evaluate(x_test, y_test, verbose=0, return_dict=True)["accuracy"]
assert accuracy > 0.85, accuracy

embedding = model.get_layer("embedding")
mask = keras.ops.convert_to_numpy(embedding.compute_mask(x_test[:4]))
np.testing.assert_array_equal(mask, x_test[:4] != 0)

# The same sequences with more padding after them give the same predictions.
wider = np.zeros((len(x_test), 30), dtype="int32")
wider[:, :16] = x_test
np.testing.assert_allclose(
    model.predict(wider, verbose=0), model.predict(x_test, verbose=0), atol=1e-5
)
# And one sequence with no padding at all matches its padded row.
alone = test_rows[0][None, :].astype("int32")
np.testing.assert_allclose(
    model.predict(alone, verbose=0)[0], model.predict(x_test[:1], verbose=0)[0], atol=1e-5
)
print("test accuracy", accuracy)
