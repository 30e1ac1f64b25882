# backends: jax torch tensorflow
"""A training loop written from scratch, per backend, as in the Keras guides.

JAX: `jax.value_and_grad` over `model.stateless_call` and `optimizer.stateless_apply`
inside `jax.jit`, then the state written back. PyTorch: autograd with `loss.backward()`
and `optimizer.apply`. TensorFlow: `tf.GradientTape` inside a `tf.function`.
Metrics are updated and reset by hand.
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import lamina as keras

BACKEND = keras.backend.backend()
keras.utils.set_random_seed(5)
digits = load_digits()
x = (digits.data / 16.0).astype("float32")
y = digits.target.astype("int32")
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, random_state=0)

model = keras.Sequential(
    [
        keras.Input(shape=(64,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dropout(0.1),
        keras.layers.Dense(10),
    ]
)
optimizer = keras.optimizers.Adam(learning_rate=3e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_accuracy = keras.metrics.SparseCategoricalAccuracy()
BATCH = 64
EPOCHS = 6


def batches(rng):
    order = rng.permutation(len(x_train))
    for start in range(0, len(order), BATCH):
        idx = order[start : start + BATCH]
        yield x_train[idx], y_train[idx]


epoch_losses = []
rng = np.random.default_rng(5)

if BACKEND == "jax":
    import jax

    def compute_loss_and_updates(trainable_variables, non_trainable_variables, x, y):
        y_pred, non_trainable_variables = model.stateless_call(
            trainable_variables, non_trainable_variables, x, training=True
        )
        return loss_fn(y, y_pred), (y_pred, non_trainable_variables)

    grad_fn = jax.value_and_grad(compute_loss_and_updates, has_aux=True)

    @jax.jit
    def train_step(state, data):
        trainable_variables, non_trainable_variables, optimizer_variables, metric_variables = state
        x, y = data
        (loss, (y_pred, non_trainable_variables)), grads = grad_fn(
            trainable_variables, non_trainable_variables, x, y
        )
        trainable_variables, optimizer_variables = optimizer.stateless_apply(
            optimizer_variables, grads, trainable_variables
        )
        metric_variables = train_accuracy.stateless_update_state(metric_variables, y, y_pred)
        return loss, (
            trainable_variables,
            non_trainable_variables,
            optimizer_variables,
            metric_variables,
        )

    optimizer.build(model.trainable_variables)
    state = (
        # The variables themselves go into the jitted step, as in the Keras JAX guide.
        model.trainable_variables,
        model.non_trainable_variables,
        optimizer.variables,
        train_accuracy.variables,
    )
    for _ in range(EPOCHS):
        losses = []
        for data in batches(rng):
            loss, state = train_step(state, data)
            losses.append(float(loss))
        epoch_losses.append(float(np.mean(losses)))
    trainable_values, non_trainable_values, optimizer_values, metric_values = state
    for variable, value in zip(model.trainable_variables, trainable_values):
        variable.assign(value)
    for variable, value in zip(model.non_trainable_variables, non_trainable_values):
        variable.assign(value)
    for variable, value in zip(optimizer.variables, optimizer_values):
        variable.assign(value)
    for variable, value in zip(train_accuracy.variables, metric_values):
        variable.assign(value)

elif BACKEND == "torch":
    import torch

    for _ in range(EPOCHS):
        losses = []
        for x_batch, y_batch in batches(rng):
            x_batch, y_batch = torch.from_numpy(x_batch), torch.from_numpy(y_batch)
            logits = model(x_batch, training=True)
            loss = loss_fn(y_batch, logits)
            model.zero_grad()
            loss.backward()
            trainable_weights = [v for v in model.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            with torch.no_grad():
                optimizer.apply(gradients, trainable_weights)
            train_accuracy.update_state(y_batch, logits)
            losses.append(float(loss.detach()))
        epoch_losses.append(float(np.mean(losses)))

else:
    import tensorflow as tf

    @tf.function
    def train_step(x_batch, y_batch):
        with tf.GradientTape() as tape:
            logits = model(x_batch, training=True)
            loss = loss_fn(y_batch, logits)
        gradients = tape.gradient(loss, model.trainable_weights)
        optimizer.apply(gradients, model.trainable_weights)
        train_accuracy.update_state(y_batch, logits)
        return loss

    for _ in range(EPOCHS):
        losses = []
        for x_batch, y_batch in batches(rng):
            losses.append(float(train_step(x_batch, y_batch)))
        epoch_losses.append(float(np.mean(losses)))

steps = int(keras.ops.convert_to_numpy(optimizer.iterations))
assert steps == EPOCHS * int(np.ceil(len(x_train) / BATCH)), steps
assert epoch_losses[-1] < epoch_losses[0] * 0.3, epoch_losses
running = float(keras.ops.convert_to_numpy(train_accuracy.result()))
assert running > 0.6, running  # accumulated over every epoch
train_accuracy.reset_state()
assert float(keras.ops.convert_to_numpy(train_accuracy.result())) == 0.0

test_accuracy = keras.metrics.SparseCategoricalAccuracy()
test_accuracy.update_state(y_test, model(x_test, training=False))
accuracy = float(keras.ops.convert_to_numpy(test_accuracy.result()))
assert accuracy > 0.9, accuracy
predicted = np.argmax(keras.ops.convert_to_numpy(model.predict(x_test, verbose=0)), axis=-1)
assert abs((predicted == y_test).mean() - accuracy) < 1e-6
print("epoch losses", [round(v, 4) for v in epoch_losses], "test accuracy", accuracy)
