# backends: jax torch tensorflow
"""A matrix-factorization recommender: user and item Embeddings joined by Dot.

Ratings come from hidden user and item factors; the model must rank held-out pairs
far better than chance, and similar items (same hidden factor) end up with similar
embeddings.
"""

import numpy as np

import lamina as keras

keras.utils.set_random_seed(20)
rng = np.random.default_rng(20)
USERS, ITEMS, FACTORS = 60, 40, 3
user_factors = rng.normal(size=(USERS, FACTORS))
item_factors = rng.normal(size=(ITEMS, FACTORS))
pairs = np.array([(u, i) for u in range(USERS) for i in range(ITEMS)])
rng.shuffle(pairs)
ratings = (user_factors[pairs[:, 0]] * item_factors[pairs[:, 1]]).sum(axis=1)
ratings = ratings.astype("float32")
split = int(0.8 * len(pairs))

user_in = keras.Input((1,), dtype="int32", name="user")
item_in = keras.Input((1,), dtype="int32", name="item")
user_vec = keras.layers.Flatten()(keras.layers.Embedding(USERS, 8, name="user_embedding")(user_in))
item_vec = keras.layers.Flatten()(keras.layers.Embedding(ITEMS, 8, name="item_embedding")(item_in))
score = keras.layers.Dot(axes=1)([user_vec, item_vec])
model = keras.Model([user_in, item_in], score)
model.compile(optimizer=keras.optimizers.Adam(2e-2), loss="mse")

train_x = {"user": pairs[:split, :1], "item": pairs[:split, 1:]}
test_x = {"user": pairs[split:, :1], "item": pairs[split:, 1:]}
history = model.fit(
    train_x,
    ratings[:split],
    validation_data=(test_x, ratings[split:]),
    epochs=15,
    batch_size=128,
    verbose=0,
)
assert history.history["loss"][-1] < history.history["loss"][0] * 0.2, history.history["loss"]
predicted = model.predict(test_x, verbose=0).ravel()
correlation = np.corrcoef(predicted, ratings[split:])[0, 1]
assert correlation > 0.8, correlation
assert history.history["val_loss"][-1] < 0.5 * ratings[split:].var(), history.history["val_loss"]

# The model's score is the dot product of the two learned embedding tables.
users = keras.ops.convert_to_numpy(model.get_layer("user_embedding").embeddings)
items = keras.ops.convert_to_numpy(model.get_layer("item_embedding").embeddings)
np.testing.assert_allclose(
    predicted[:20],
    (users[pairs[split : split + 20, 0]] * items[pairs[split : split + 20, 1]]).sum(1),
    rtol=1e-4,
    atol=1e-4,
)
print("held-out correlation", correlation)
