# backends: jax torch tensorflow
"""A small CNN on scikit-learn's 8x8 digits, with the callbacks people reach for.

ModelCheckpoint keeps the best model by validation accuracy, ReduceLROnPlateau lowers
the learning rate, CSVLogger writes one row per epoch; the best checkpoint is reloaded
and must score exactly what the checkpoint epoch scored.
"""

import csv
import os
import tempfile

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import lamina as keras

keras.utils.set_random_seed(1)
digits = load_digits()
images = (digits.images / 16.0).astype("float32")[..., None]
labels = digits.target.astype("int32")
x_train, x_val, y_train, y_val = train_test_split(
    images, labels, test_size=0.2, random_state=0, stratify=labels
)

model = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 1)),
        keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(10, activation="softmax"),
    ],
    name="digits_cnn",
)
model.compile(
    optimizer=keras.optimizers.Adam(learning_rate=3e-3),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)

with tempfile.TemporaryDirectory() as tmp:
    best_path = os.path.join(tmp, "best.keras")
    log_path = os.path.join(tmp, "training.csv")
    callbacks = [
        keras.callbacks.ModelCheckpoint(
            best_path, monitor="val_accuracy", mode="max", save_best_only=True
        ),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=1e-4),
        keras.callbacks.CSVLogger(log_path),
    ]
    epochs = 8
    history = model.fit(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=epochs,
        batch_size=64,
        callbacks=callbacks,
        verbose=0,
    )
    assert os.path.exists(best_path)

    with open(log_path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == epochs, rows
    assert [int(r["epoch"]) for r in rows] == list(range(epochs))
    logged = [float(r["val_accuracy"]) for r in rows]
    np.testing.assert_allclose(logged, history.history["val_accuracy"], rtol=1e-5)

    learning_rate = float(keras.ops.convert_to_numpy(model.optimizer.learning_rate))
    assert 1e-4 - 1e-9 <= learning_rate <= 3e-3 + 1e-9, learning_rate

    best = keras.models.load_model(best_path)
    assert best.name == "digits_cnn"
    reloaded = best.evaluate(x_val, y_val, verbose=0, return_dict=True)
    best_val_accuracy = max(history.history["val_accuracy"])
    assert abs(reloaded["accuracy"] - best_val_accuracy) < 1e-6, (reloaded, best_val_accuracy)
    assert best_val_accuracy > 0.85, history.history["val_accuracy"]
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    print("best val accuracy", best_val_accuracy, "lr", learning_rate)
