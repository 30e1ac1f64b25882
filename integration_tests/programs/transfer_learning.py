# backends: jax torch tensorflow
"""Transfer learning: pretrain a base, freeze it, train a new head, then fine-tune.

The base (with BatchNormalization) is pretrained on digits 0-4; a new head learns
digits 5-9 on the frozen base, whose weights and moving statistics must not move;
then the base is unfrozen, the model recompiled with a low learning rate and tuned,
keeping BatchNormalization in inference mode as the Keras guide recommends.
"""

import numpy as np
from sklearn.datasets import load_digits

import lamina as keras

keras.utils.set_random_seed(16)
digits = load_digits()
images = (digits.images / 16.0).astype("float32")[..., None]
labels = digits.target
first, second = labels < 5, labels >= 5
x_a, y_a = images[first], labels[first]
x_b, y_b = images[second], labels[second] - 5
split = int(0.8 * len(x_b))

base = keras.Sequential(
    [
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(16, 3, padding="same"),
        keras.layers.BatchNormalization(),
        keras.layers.Activation("relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(32, activation="relu"),
    ],
    name="base",
)
pretrain = keras.Sequential([base, keras.layers.Dense(5, activation="softmax")])
pretrain.compile(
    optimizer=keras.optimizers.Adam(3e-3),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
pretrain.fit(x_a, y_a, epochs=6, batch_size=64, verbose=0)


def snapshot(layer):
    return [keras.ops.convert_to_numpy(w).copy() for w in layer.weights]


base.trainable = False
assert base.trainable_weights == [] and len(base.non_trainable_weights) == 8
inputs = keras.Input((8, 8, 1))
features = base(inputs, training=False)
outputs = keras.layers.Dense(5, activation="softmax", name="head")(
    keras.layers.Dropout(0.2)(features)
)
model = keras.Model(inputs, outputs)
assert len(model.trainable_weights) == 2
model.compile(
    optimizer=keras.optimizers.Adam(1e-2),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
frozen = snapshot(base)
history = model.fit(
    x_b[:split],
    y_b[:split],
    validation_data=(x_b[split:], y_b[split:]),
    epochs=12,
    batch_size=32,
    verbose=0,
)
for before, after in zip(frozen, snapshot(base)):
    np.testing.assert_array_equal(before, after)
head_accuracy = history.history["val_accuracy"][-1]
assert head_accuracy > 0.6  # five classes: chance is 0.2, history.history["val_accuracy"]

base.trainable = True
model.compile(
    optimizer=keras.optimizers.Adam(1e-4),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
assert len(model.trainable_weights) == 2 + 6
bn = base.layers[1]
moving = snapshot(bn)[2:]
history = model.fit(
    x_b[:split],
    y_b[:split],
    validation_data=(x_b[split:], y_b[split:]),
    epochs=3,
    batch_size=64,
    verbose=0,
)
tuned = snapshot(base)
assert any(not np.array_equal(a, b) for a, b in zip(frozen, tuned))
# training=False on the base: BatchNormalization keeps its moving statistics.
for before, after in zip(moving, snapshot(bn)[2:]):
    np.testing.assert_array_equal(before, after)
assert history.history["val_accuracy"][-1] >= head_accuracy - 0.02, history.history
print("head", head_accuracy, "fine-tuned", history.history["val_accuracy"][-1])
