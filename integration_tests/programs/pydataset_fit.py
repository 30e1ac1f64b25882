# backends: jax torch tensorflow
"""A keras.utils.PyDataset feeding fit, evaluate and predict.

The dataset loads batches lazily (as a file-backed dataset would), yields (x, y) or
(x, y, sample_weight) tuples, and shuffles through `on_epoch_end`.
"""

import math

import numpy as np
from sklearn.datasets import load_digits

import lamina as keras


class DigitsSequence(keras.utils.PyDataset):
    def __init__(self, images, labels, batch_size, weights=None, **kwargs):
        super().__init__(**kwargs)
        self.images, self.labels, self.weights = images, labels, weights
        self.batch_size = batch_size
        self.order = np.arange(len(images))
        self.epochs_seen = 0

    def __len__(self):
        return math.ceil(len(self.images) / self.batch_size)

    def __getitem__(self, index):
        idx = self.order[index * self.batch_size : (index + 1) * self.batch_size]
        x = self.images[idx].reshape(-1, 64).astype("float32") / 16.0
        if self.labels is None:
            return (x,)
        if self.weights is None:
            return x, self.labels[idx]
        return x, self.labels[idx], self.weights[idx]

    def on_epoch_end(self):
        self.epochs_seen += 1
        self.order = np.random.default_rng(self.epochs_seen).permutation(len(self.images))


keras.utils.set_random_seed(13)
digits = load_digits()
images, labels = digits.images[:1500], digits.target[:1500]
test_images, test_labels = digits.images[1500:], digits.target[1500:]

train = DigitsSequence(images, labels, batch_size=64)
assert len(train) == 24 and train.num_batches == 24
model = keras.Sequential(
    [keras.Input((64,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(10)]
)
model.compile(
    optimizer=keras.optimizers.Adam(5e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
history = model.fit(
    train, validation_data=DigitsSequence(test_images, test_labels, 100), epochs=5, verbose=0
)
assert train.epochs_seen >= 4, train.epochs_seen
assert history.history["loss"][-1] < history.history["loss"][0] * 0.4, history.history["loss"]
assert history.history["val_accuracy"][-1] > 0.85, history.history["val_accuracy"]

results = model.evaluate(DigitsSequence(test_images, test_labels, 50), verbose=0, return_dict=True)
np.testing.assert_allclose(results["accuracy"], history.history["val_accuracy"][-1], rtol=1e-6)
logits = model.predict(DigitsSequence(test_images, None, 50), verbose=0)
assert logits.shape == (len(test_images), 10)
accuracy = (logits.argmax(axis=-1) == test_labels).mean()
np.testing.assert_allclose(accuracy, results["accuracy"], rtol=1e-6)

# Sample weights from the dataset: weight 0 on every "7" means they are not learned.
weights = (labels != 7).astype("float32")
fresh = keras.Sequential(
    [keras.Input((64,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(10)]
)
fresh.compile(
    optimizer=keras.optimizers.Adam(5e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
fresh.fit(DigitsSequence(images, labels, 64, weights=weights), epochs=5, verbose=0)
predicted = fresh.predict(test_images.reshape(-1, 64) / 16.0, verbose=0).argmax(axis=-1)
assert (predicted == 7).sum() == 0, (predicted == 7).sum()
print("val accuracy", history.history["val_accuracy"][-1])
