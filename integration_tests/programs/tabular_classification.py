# backends: jax torch tensorflow
"""Tabular binary classification on scikit-learn's breast cancer data.

Normalization adapted on the training split, a small MLP with Dropout, EarlyStopping on
the validation loss with the best weights restored.
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import lamina as keras

keras.utils.set_random_seed(0)
x, y = load_breast_cancer(return_X_y=True)
x = x.astype("float32")
y = y.astype("float32")
x_train, x_test, y_train, y_test = train_test_split(
    x, y, test_size=0.25, random_state=0, stratify=y
)

normalizer = keras.layers.Normalization()
normalizer.adapt(x_train)
mean = keras.ops.convert_to_numpy(normalizer.mean).reshape(-1)
np.testing.assert_allclose(mean, x_train.mean(axis=0), rtol=1e-4)

model = keras.Sequential(
    [
        keras.Input(shape=(x.shape[1],)),
        normalizer,
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(learning_rate=1e-2),
    loss="binary_crossentropy",
    metrics=["accuracy", keras.metrics.AUC(name="auc")],
)
stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
history = model.fit(
    x_train, y_train, validation_split=0.2, epochs=40, batch_size=32, callbacks=[stop], verbose=0
)

losses = history.history["loss"]
assert losses[-1] < losses[0] * 0.5, losses
assert set(history.history) >= {"loss", "accuracy", "auc", "val_loss", "val_accuracy", "val_auc"}
# restore_best_weights: the model now scores the best validation loss seen.
best = min(history.history["val_loss"])
split_at = int(np.floor(len(x_train) * 0.8))  # validation_split takes the last 20%
x_val, y_val = x_train[split_at:], y_train[split_at:]
val_loss = model.evaluate(x_val, y_val, verbose=0, return_dict=True)["loss"]
assert abs(val_loss - best) < 1e-4, (val_loss, best)

results = model.evaluate(x_test, y_test, verbose=0, return_dict=True)
assert results["accuracy"] > 0.93, results
assert results["auc"] > 0.97, results
probabilities = model.predict(x_test, verbose=0)
assert probabilities.shape == (len(x_test), 1)
hits = ((probabilities > 0.5).ravel() == (y_test > 0.5)).mean()
assert abs(hits - results["accuracy"]) < 1e-6, (hits, results["accuracy"])
print("test accuracy", results["accuracy"], "epochs", len(losses))
