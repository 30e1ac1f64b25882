# backends: jax torch tensorflow
"""A subclassed Model: train, save weights, load them into fresh instances.

One fresh instance is built first by calling it (the Keras 3 way); another gets its
weights loaded before it is built, a habit carried over from tf.keras, and receives
them when its first call creates the variables. Both predict what the original does.
"""

import os
import tempfile

import numpy as np
from sklearn.datasets import load_wine

import lamina as keras


class WineNet(keras.Model):
    def __init__(self, num_classes=3, **kwargs):
        super().__init__(**kwargs)
        self.norm = keras.layers.BatchNormalization()
        self.hidden = keras.layers.Dense(24, activation="relu")
        self.dropout = keras.layers.Dropout(0.2)
        self.out = keras.layers.Dense(num_classes)

    def call(self, inputs, training=False):
        x = self.norm(inputs, training=training)
        x = self.dropout(self.hidden(x), training=training)
        return self.out(x)


keras.utils.set_random_seed(11)
x, y = load_wine(return_X_y=True)
x = x.astype("float32")
model = WineNet()
model.compile(
    optimizer=keras.optimizers.Adam(1e-2),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
history = model.fit(x, y, epochs=15, batch_size=16, verbose=0)
assert history.history["accuracy"][-1] > 0.9, history.history["accuracy"]
assert len(model.weights) == 8  # BN: 4, two Dense: 2 each
expected = model.predict(x, verbose=0)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "wine.weights.h5")
    model.save_weights(path)

    built_first = WineNet()
    built_first(x[:1])
    built_first.load_weights(path)
    np.testing.assert_allclose(built_first.predict(x, verbose=0), expected, atol=1e-5)

    loaded_first = WineNet()
    assert not loaded_first.weights
    loaded_first.load_weights(path)
    np.testing.assert_allclose(loaded_first.predict(x, verbose=0), expected, atol=1e-5)

# The moving statistics came back too, not only the trainable weights.
for restored in (built_first, loaded_first):
    for a, b in zip(model.norm.weights, restored.norm.weights):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b))
print("train accuracy", history.history["accuracy"][-1])
