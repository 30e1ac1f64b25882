# backends: jax torch tensorflow
# requires: tensorflow
"""A tf.data pipeline feeding fit, evaluate and predict, on any backend.

Shuffled, batched and prefetched `tf.data.Dataset`s of (features, label) and of
features alone; a dataset mapped with per-sample weights; `steps_per_epoch` with a
repeated dataset.
"""

import numpy as np
import tensorflow as tf
from sklearn.datasets import load_breast_cancer

import lamina as keras

keras.utils.set_random_seed(14)
tf.random.set_seed(14)
x, y = load_breast_cancer(return_X_y=True)
x = ((x - x.mean(axis=0)) / x.std(axis=0)).astype("float32")
y = y.astype("float32")
x_train, y_train, x_test, y_test = x[:450], y[:450], x[450:], y[450:]

train = (
    tf.data.Dataset.from_tensor_slices((x_train, y_train))
    .shuffle(450, seed=0)
    .batch(32)
    .prefetch(tf.data.AUTOTUNE)
)
test = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(40)

model = keras.Sequential(
    [
        keras.Input((30,)),
        keras.layers.Dense(8, activation="relu"),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=["accuracy"]
)
history = model.fit(train, validation_data=test, epochs=6, verbose=0)
assert history.history["loss"][-1] < history.history["loss"][0] * 0.5, history.history["loss"]
assert history.history["val_accuracy"][-1] > 0.9, history.history["val_accuracy"]

results = model.evaluate(test, verbose=0, return_dict=True)
probabilities = model.predict(tf.data.Dataset.from_tensor_slices(x_test).batch(40), verbose=0)
assert probabilities.shape == (len(x_test), 1)
accuracy = ((probabilities[:, 0] > 0.5) == (y_test > 0.5)).mean()
np.testing.assert_allclose(accuracy, results["accuracy"], rtol=1e-6)

# A repeated dataset with per-sample weights, bounded by steps_per_epoch.
weighted = (
    tf.data.Dataset.from_tensor_slices((x_train, y_train))
    .map(lambda f, label: (f, label, 1.0 + label))
    .repeat()
    .batch(50)
)
history = model.fit(weighted, steps_per_epoch=5, epochs=2, verbose=0)
assert history.params["steps"] == 5, history.params
assert len(history.history["loss"]) == 2
print("val accuracy", results["accuracy"])
