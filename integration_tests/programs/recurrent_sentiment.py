# backends: jax torch tensorflow
"""A sentiment-style classifier over variable-length token sequences with a bidirectional LSTM.

Tokens 1-9 are "positive" words, 10-18 "negative" ones, the rest neutral; a review is
positive when it has more positive than negative words. The sequences are padded with
`pad_sequences` and the padding masked by `Embedding(mask_zero=True)`, so the LSTMs skip
it: predictions must not change with the amount of padding. The model is saved and
loaded back, and the padding side does not matter for a masked bidirectional model.
"""

import os
import tempfile

import numpy as np

import lamina as keras

VOCAB = 40
MAXLEN = 24
rng = np.random.default_rng(0)


def reviews(count):
    rows, labels = [], []
    while len(rows) < count:
        n = int(rng.integers(4, MAXLEN + 1))
        row = rng.integers(1, VOCAB, size=n)
        positive = int(((row >= 1) & (row <= 9)).sum())
        negative = int(((row >= 10) & (row <= 18)).sum())
        if positive == negative:
            continue  # no ties: the rule decides every review
        rows.append(row.tolist())
        labels.append(float(positive > negative))
    return rows, np.array(labels, dtype="float32")


keras.utils.set_random_seed(1)
train_rows, y_train = reviews(3000)
test_rows, y_test = reviews(500)
x_train = keras.utils.pad_sequences(train_rows, maxlen=MAXLEN, padding="post")
x_test = keras.utils.pad_sequences(test_rows, maxlen=MAXLEN, padding="post")
assert x_train.shape == (3000, MAXLEN) and x_train.dtype == np.int32

inputs = keras.Input(shape=(None,), dtype="int32")
embedded = keras.layers.Embedding(VOCAB, 16, mask_zero=True)(inputs)
encoded = keras.layers.Bidirectional(keras.layers.LSTM(24), name="encoder")(embedded)
outputs = keras.layers.Dense(1, activation="sigmoid")(encoded)
model = keras.Model(inputs, outputs)
model.compile(
    optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=["accuracy"]
)
history = model.fit(x_train, y_train, epochs=8, batch_size=64, verbose=0)

losses = history.history["loss"]
assert losses[-1] < losses[0] * 0.5, losses
accuracy = model.evaluate(x_test, y_test, verbose=0, return_dict=True)["accuracy"]
assert accuracy > 0.9, accuracy
assert model.get_layer("encoder").output.shape == (None, 48)

# Padding is masked: more of it after each review changes nothing.
wider = keras.utils.pad_sequences(test_rows, maxlen=MAXLEN + 10, padding="post")
predicted = model.predict(x_test, verbose=0)
np.testing.assert_allclose(model.predict(wider, verbose=0), predicted, atol=1e-5)
# Nor does padding before the reviews: both directions skip masked steps.
before = keras.utils.pad_sequences(test_rows[:64], maxlen=MAXLEN, padding="pre")
np.testing.assert_allclose(model.predict(before, verbose=0), predicted[:64], atol=1e-5)

# The trained model round-trips through a .keras file.
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "sentiment.keras")
    model.save(path)
    restored = keras.saving.load_model(path)
np.testing.assert_allclose(restored.predict(x_test, verbose=0), predicted, atol=1e-5)
print(f"recurrent sentiment: test accuracy {accuracy:.3f}")
