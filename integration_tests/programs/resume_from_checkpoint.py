# backends: jax torch tensorflow
"""Resume training after an interruption.

BackupAndRestore: a run interrupted by an exception in epoch 3 resumes, in a new model
object, at epoch 3 with the weights and optimizer state of the end of epoch 2. Then
the manual way: a `.keras` file keeps the optimizer state, so a reloaded model goes on
from the same iteration count and takes the same next step as the original.
"""

import os
import tempfile

import numpy as np

import lamina as keras

rng = np.random.default_rng(17)
x = rng.normal(size=(200, 5)).astype("float32")
y = (x @ rng.normal(size=(5, 1)) + 0.1).astype("float32")


def make_model():
    keras.utils.set_random_seed(17)
    model = keras.Sequential(
        [keras.Input((5,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)]
    )
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse")
    return model


class Interrupt(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        if epoch == 3:
            raise RuntimeError("interrupted")


class EpochsSeen(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.epochs = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append(epoch)


with tempfile.TemporaryDirectory() as tmp:
    backup_dir = os.path.join(tmp, "backup")
    reference = make_model()
    reference_history = reference.fit(x, y, epochs=6, batch_size=50, shuffle=False, verbose=0)

    first = make_model()
    try:
        first.fit(
            x,
            y,
            epochs=6,
            batch_size=50,
            shuffle=False,
            verbose=0,
            callbacks=[keras.callbacks.BackupAndRestore(backup_dir), Interrupt()],
        )
        raise AssertionError("the interruption did not happen")
    except RuntimeError as error:
        assert "interrupted" in str(error)

    resumed = make_model()
    seen = EpochsSeen()
    history = resumed.fit(
        x,
        y,
        epochs=6,
        batch_size=50,
        shuffle=False,
        verbose=0,
        callbacks=[keras.callbacks.BackupAndRestore(backup_dir), seen],
    )
    assert seen.epochs == [3, 4, 5], seen.epochs
    assert int(keras.ops.convert_to_numpy(resumed.optimizer.iterations)) == 6 * 4
    np.testing.assert_allclose(
        history.history["loss"], reference_history.history["loss"][3:], rtol=1e-4
    )
    np.testing.assert_allclose(
        resumed.predict(x, verbose=0), reference.predict(x, verbose=0), atol=1e-5
    )
    assert not os.path.exists(backup_dir) or not os.listdir(backup_dir)

    # The manual way: save mid-training, reload, continue.
    model = make_model()
    model.fit(x, y, epochs=2, batch_size=50, verbose=0)
    path = os.path.join(tmp, "midway.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    assert int(keras.ops.convert_to_numpy(restored.optimizer.iterations)) == 8
    for a, b in zip(model.optimizer.variables, restored.optimizer.variables):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b))
    model.fit(x, y, epochs=1, batch_size=50, shuffle=False, verbose=0)
    restored.fit(x, y, epochs=1, batch_size=50, shuffle=False, verbose=0)
    assert int(keras.ops.convert_to_numpy(restored.optimizer.iterations)) == 12
    np.testing.assert_allclose(
        restored.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-5
    )
print("resumed at epoch 3, losses", [round(v, 4) for v in history.history["loss"]])
