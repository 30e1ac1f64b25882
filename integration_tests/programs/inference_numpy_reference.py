# backends: numpy jax torch tensorflow
"""Inference only: known weights in, predictions checked against plain NumPy.

Weights are set with `set_weights`, predictions compared to the same network written
in NumPy, then the model goes through `.keras` and `.weights.h5` files and through
`predict` at several batch sizes; every route gives the same numbers.
"""

import os
import tempfile

import numpy as np

import lamina as keras

rng = np.random.default_rng(21)
x = rng.normal(size=(37, 5)).astype("float32")

inputs = keras.Input((5,))
hidden = keras.layers.Dense(7, activation="relu", name="hidden")(inputs)
normed = keras.layers.LayerNormalization(name="norm")(hidden)
outputs = keras.layers.Dense(3, activation="softmax", name="probabilities")(normed)
model = keras.Model(inputs, outputs)

weights = [
    w.astype("float32")
    for w in (
        rng.normal(size=(5, 7)),
        rng.normal(size=7),
        1.0 + 0.1 * rng.normal(size=7),
        0.1 * rng.normal(size=7),
        rng.normal(size=(7, 3)),
        rng.normal(size=3),
    )
]
model.set_weights(weights)
for given, got in zip(weights, model.get_weights()):
    np.testing.assert_array_equal(given, got)


def numpy_forward(a):
    k1, b1, gamma, beta, k2, b2 = weights
    h = np.maximum(a @ k1 + b1, 0.0)
    mean, var = h.mean(-1, keepdims=True), h.var(-1, keepdims=True)
    h = (h - mean) / np.sqrt(var + 1e-3) * gamma + beta
    logits = h @ k2 + b2
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


expected = numpy_forward(x)
np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(keras.ops.convert_to_numpy(model(x)), expected, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(model.predict_on_batch(x), expected, rtol=1e-5, atol=1e-6)
for batch_size in (1, 8, 64):
    np.testing.assert_allclose(
        model.predict(x, batch_size=batch_size, verbose=0), expected, rtol=1e-5, atol=1e-6
    )

with tempfile.TemporaryDirectory() as tmp:
    model.save(os.path.join(tmp, "model.keras"))
    model.save_weights(os.path.join(tmp, "model.weights.h5"))
    reloaded = keras.models.load_model(os.path.join(tmp, "model.keras"))
    twin = keras.models.clone_model(model)
    twin.load_weights(os.path.join(tmp, "model.weights.h5"))
for other in (reloaded, twin):
    np.testing.assert_allclose(other.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
assert [layer.name for layer in reloaded.layers] == [layer.name for layer in model.layers]
print(keras.backend.backend(), "matches NumPy to 1e-5")
