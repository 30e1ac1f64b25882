# backends: jax torch tensorflow
"""A functional model with two named inputs and two named outputs.

Trained from dicts, with a loss, a loss weight and metrics per output; the reported
total loss must be the weighted sum of the per-output losses.
"""

import numpy as np

import lamina as keras

keras.utils.set_random_seed(10)
rng = np.random.default_rng(10)
N = 600
features = rng.normal(size=(N, 6)).astype("float32")
category_ids = rng.integers(0, 5, size=(N, 1)).astype("int32")
price = (features[:, :1] * 2.0 + category_ids * 0.5).astype("float32")
label = ((features[:, 1] > 0).astype("int32") + 2 * (category_ids[:, 0] > 2)).astype("int32")

numeric = keras.Input(shape=(6,), name="numeric")
category = keras.Input(shape=(1,), dtype="int32", name="category")
embedded = keras.layers.Flatten()(keras.layers.Embedding(5, 4)(category))
merged = keras.layers.concatenate([numeric, embedded])
hidden = keras.layers.Dense(32, activation="relu")(merged)
price_out = keras.layers.Dense(1, name="price")(hidden)
class_out = keras.layers.Dense(4, activation="softmax", name="label")(hidden)
model = keras.Model(inputs=[numeric, category], outputs=[price_out, class_out])

model.compile(
    optimizer=keras.optimizers.Adam(1e-2),
    loss={"price": "mse", "label": "sparse_categorical_crossentropy"},
    loss_weights={"price": 1.0, "label": 0.5},
    metrics={"price": ["mae"], "label": ["accuracy"]},
)
history = model.fit(
    {"numeric": features, "category": category_ids},
    {"price": price, "label": label},
    epochs=12,
    batch_size=50,
    validation_split=0.2,
    verbose=0,
)
keys = set(history.history)
assert {"loss", "price_loss", "label_loss", "price_mae", "label_accuracy"} <= keys, keys
assert {"val_loss", "val_price_mae", "val_label_accuracy"} <= keys, keys
assert history.history["loss"][-1] < history.history["loss"][0] * 0.5, history.history["loss"]

results = model.evaluate(
    {"numeric": features, "category": category_ids},
    {"price": price, "label": label},
    batch_size=50,
    verbose=0,
    return_dict=True,
)
assert results["label_accuracy"] > 0.85, results
assert results["price_mae"] < 0.5, results

price_pred, label_pred = model.predict({"numeric": features, "category": category_ids}, verbose=0)
assert price_pred.shape == (N, 1) and label_pred.shape == (N, 4)
np.testing.assert_allclose(np.abs(price_pred - price).mean(), results["price_mae"], rtol=1e-4)
# A list of inputs in the order of `model.inputs` works as well as the dict.
price_again, _ = model.predict([features, category_ids], verbose=0)
np.testing.assert_allclose(price_again, price_pred, atol=1e-6)
# Per-output losses are reported unweighted; the total applies loss_weights.
weighted = results["price_loss"] + 0.5 * results["label_loss"]
np.testing.assert_allclose(results["loss"], weighted, rtol=1e-4)
print(results)
