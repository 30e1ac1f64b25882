# backends: jax numpy
# requires: keras
"""Hand a model to a colleague who runs Keras 3, and take theirs back.

The model (a sequence classifier: LSTM, self-attention, pooling, softmax) is trained here,
saved as `.keras` and `.weights.h5`, and opened by real Keras 3 in another interpreter,
which must predict the same. That colleague then trains the model further in Keras and
saves it; the file opens here, predicts what Keras predicted, and its weights also load
into the same architecture built here. On NumPy (inference only) the training steps are
skipped and the model is used as built.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

import lamina as keras

KERAS_SIDE = """
import sys
import numpy as np
import keras

folder = sys.argv[1]
x = np.load(f"{folder}/x.npy")
y = np.load(f"{folder}/y.npy")
model = keras.saving.load_model(f"{folder}/from_lamina.keras")
np.save(f"{folder}/keras_on_lamina_file.npy", model.predict(x, verbose=0))
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
model.save(f"{folder}/from_keras.keras")
model.save_weights(f"{folder}/from_keras.weights.h5")
np.save(f"{folder}/keras_after_training.npy", model.predict(x, verbose=0))
print("keras", keras.__version__, "on", keras.backend.backend())
"""


def build_model():
    tokens = keras.Input(shape=(10, 4), name="steps")
    x = keras.layers.LSTM(8, return_sequences=True, name="lstm")(tokens)
    x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, name="attention")(x, x)
    x = keras.layers.LayerNormalization(name="norm")(x)
    x = keras.layers.GlobalAveragePooling1D(name="pool")(x)
    outputs = keras.layers.Dense(3, activation="softmax", name="classes")(x)
    return keras.Model(tokens, outputs, name="sequence_classifier")


if __name__ == "__main__":
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 10, 4)).astype("float32")
    y = np.argmax(x.sum(axis=1)[:, :3], axis=1)  # the class is the largest summed feature

    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    trains = keras.backend.backend() != "numpy"
    if trains:
        history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
        losses = history.history["loss"]
        assert losses[-1] < losses[0], losses

    with tempfile.TemporaryDirectory() as folder:
        np.save(f"{folder}/x.npy", x)
        np.save(f"{folder}/y.npy", y)
        model.save(f"{folder}/from_lamina.keras")
        ours = keras.ops.convert_to_numpy(model.predict(x, verbose=0))

        env = dict(os.environ, KERAS_BACKEND="jax")
        done = subprocess.run(
            [sys.executable, "-c", KERAS_SIDE, folder],
            env=env, capture_output=True, text=True, timeout=180,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        print(done.stdout.strip())

        theirs = np.load(f"{folder}/keras_on_lamina_file.npy")
        np.testing.assert_allclose(theirs, ours, atol=1e-5)

        trained_by_keras = np.load(f"{folder}/keras_after_training.npy")
        assert np.abs(trained_by_keras - ours).max() > 1e-4, "Keras' training changed nothing"
        reloaded = keras.saving.load_model(f"{folder}/from_keras.keras")
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(reloaded.predict(x, verbose=0)), trained_by_keras,
            atol=1e-5,
        )
        if trains:  # the optimizer state came along: training goes on here
            reloaded.fit(x, y, epochs=1, batch_size=16, verbose=0)

        rebuilt = build_model()
        rebuilt.load_weights(f"{folder}/from_keras.weights.h5")
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(rebuilt.predict(x, verbose=0)), trained_by_keras,
            atol=1e-5,
        )
    print("files moved both ways with Keras 3 and predicted alike")
