# backends: jax torch tensorflow
# requires: torch
"""A torch DataLoader feeding fit, evaluate and predict, on any backend.

A map-style `torch.utils.data.Dataset` of (image, label) pairs, batched and shuffled by
a `DataLoader`, with a last batch smaller than the others.
"""

import numpy as np
import torch
from sklearn.datasets import load_digits

import lamina as keras


class Digits(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images = torch.tensor(images / 16.0, dtype=torch.float32).unsqueeze(-1)
        self.labels = torch.tensor(labels, dtype=torch.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


keras.utils.set_random_seed(15)
torch.manual_seed(15)
digits = load_digits()
train_set = Digits(digits.images[:1400], digits.target[:1400])
test_set = Digits(digits.images[1400:], digits.target[1400:])
train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=64)
assert len(train_set) % 64 != 0

model = keras.Sequential(
    [
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(8, 3, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(10, activation="softmax"),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(5e-3),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
history = model.fit(train_loader, validation_data=test_loader, epochs=5, verbose=0)
assert history.history["loss"][-1] < history.history["loss"][0] * 0.4, history.history["loss"]
assert history.history["val_accuracy"][-1] > 0.85, history.history["val_accuracy"]

results = model.evaluate(test_loader, verbose=0, return_dict=True)
probabilities = model.predict(test_loader, verbose=0)
assert probabilities.shape == (len(test_set), 10), probabilities.shape
accuracy = (np.argmax(probabilities, axis=-1) == digits.target[1400:]).mean()
np.testing.assert_allclose(accuracy, results["accuracy"], rtol=1e-6)
print("val accuracy", results["accuracy"])
