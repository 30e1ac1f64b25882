# backends: jax torch tensorflow
"""Train on one backend, load the weights on another, get the same predictions.

The weights go through a `.weights.h5` file; a fresh interpreter on another installed
backend (the backend is chosen by an environment variable before import) builds the
same architecture, loads them and predicts. NumPy, inference only, loads them too.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

import lamina as keras

ROTATION = {"jax": "torch", "torch": "tensorflow", "tensorflow": "jax"}


def build_model():
    inputs = keras.Input(shape=(8, 8, 1))
    x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(16, activation="relu")(x)
    outputs = keras.layers.Dense(3, activation="softmax")(x)
    return keras.Model(inputs, outputs)


LOADER = """
import sys
import numpy as np
import lamina as keras
sys.path.insert(0, sys.argv[1])
from cross_backend_weights import build_model
model = build_model()
model.load_weights(sys.argv[2])
np.save(sys.argv[4], keras.ops.convert_to_numpy(model.predict(np.load(sys.argv[3]), verbose=0)))
print(keras.backend.backend())
"""

if __name__ == "__main__":
    BACKEND = keras.backend.backend()
    targets = [b for b in (ROTATION[BACKEND], "numpy") if importlib.util.find_spec(b) is not None]
    keras.utils.set_random_seed(7)
    rng = np.random.default_rng(7)
    x = rng.uniform(size=(96, 8, 8, 1)).astype("float32")
    y = rng.integers(0, 3, size=96)
    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, y, epochs=2, batch_size=32, verbose=0)
    expected = model.predict(x, verbose=0)

    with tempfile.TemporaryDirectory() as tmp:
        weights = os.path.join(tmp, "model.weights.h5")
        inputs = os.path.join(tmp, "inputs.npy")
        model.save_weights(weights)
        np.save(inputs, x)
        for target in targets:
            outputs = os.path.join(tmp, f"{target}.npy")
            env = dict(os.environ, LAMINA_BACKEND=target)
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    LOADER,
                    os.path.dirname(os.path.abspath(__file__)),
                    weights,
                    inputs,
                    outputs,
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            assert done.stdout.split()[-1] == target, done.stdout
            np.testing.assert_allclose(np.load(outputs), expected, atol=1e-5)
            print(BACKEND, "->", target, "predictions match")
    assert targets, "no other backend is installed"
