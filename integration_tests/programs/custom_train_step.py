# backends: jax torch tensorflow
"""Overriding `train_step` and `test_step`, written per backend as the Keras guides do.

A functional model of a `Model` subclass (`CustomModel(inputs, outputs)`) tracks its
own loss and MAE metrics; `fit` and `evaluate` must run the overridden steps.
"""

import numpy as np

import lamina as keras

BACKEND = keras.backend.backend()
if BACKEND == "jax":
    import jax
elif BACKEND == "torch":
    import torch
elif BACKEND == "tensorflow":
    import tensorflow as tf

calls = {"train": 0, "test": 0}


class CustomModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]

    if BACKEND == "jax":

        def compute_loss_and_updates(
            self, trainable_variables, non_trainable_variables, x, y, training=False
        ):
            y_pred, non_trainable_variables = self.stateless_call(
                trainable_variables, non_trainable_variables, x, training=training
            )
            loss = self.loss_fn(y, y_pred)
            return loss, (y_pred, non_trainable_variables)

        def train_step(self, state, data):
            calls["train"] += 1
            trainable_variables, non_trainable_variables, optimizer_variables, metrics_variables = (
                state
            )
            x, y = data
            grad_fn = jax.value_and_grad(self.compute_loss_and_updates, has_aux=True)
            (loss, (y_pred, non_trainable_variables)), grads = grad_fn(
                trainable_variables, non_trainable_variables, x, y, training=True
            )
            trainable_variables, optimizer_variables = self.optimizer.stateless_apply(
                optimizer_variables, grads, trainable_variables
            )
            n = len(self.loss_tracker.variables)
            loss_vars = self.loss_tracker.stateless_update_state(metrics_variables[:n], loss)
            mae_vars = self.mae_metric.stateless_update_state(metrics_variables[n:], y, y_pred)
            logs = {
                "loss": self.loss_tracker.stateless_result(loss_vars),
                "mae": self.mae_metric.stateless_result(mae_vars),
            }
            state = (
                trainable_variables,
                non_trainable_variables,
                optimizer_variables,
                loss_vars + mae_vars,
            )
            return logs, state

        def test_step(self, state, data):
            calls["test"] += 1
            trainable_variables, non_trainable_variables, metrics_variables = state
            x, y = data
            y_pred, non_trainable_variables = self.stateless_call(
                trainable_variables, non_trainable_variables, x, training=False
            )
            loss = self.loss_fn(y, y_pred)
            n = len(self.loss_tracker.variables)
            loss_vars = self.loss_tracker.stateless_update_state(metrics_variables[:n], loss)
            mae_vars = self.mae_metric.stateless_update_state(metrics_variables[n:], y, y_pred)
            logs = {
                "loss": self.loss_tracker.stateless_result(loss_vars),
                "mae": self.mae_metric.stateless_result(mae_vars),
            }
            return logs, (trainable_variables, non_trainable_variables, loss_vars + mae_vars)

    elif BACKEND == "torch":

        def train_step(self, data):
            calls["train"] += 1
            x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
            loss.backward()
            trainable_weights = [v for v in self.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            with torch.no_grad():
                self.optimizer.apply(gradients, trainable_weights)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        def test_step(self, data):
            calls["test"] += 1
            x, y = data
            y_pred = self(x, training=False)
            self.loss_tracker.update_state(self.loss_fn(y, y_pred))
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    else:

        def train_step(self, data):
            calls["train"] += 1
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.loss_fn(y, y_pred)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(gradients, self.trainable_variables)
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        def test_step(self, data):
            calls["test"] += 1
            x, y = data
            y_pred = self(x, training=False)
            self.loss_tracker.update_state(self.loss_fn(y, y_pred))
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}


keras.utils.set_random_seed(4)
rng = np.random.default_rng(4)
x = rng.normal(size=(500, 8)).astype("float32")
y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2]).astype("float32")

inputs = keras.Input(shape=(8,))
hidden = keras.layers.Dense(32, activation="relu")(inputs)
outputs = keras.layers.Dense(1)(hidden)
model = CustomModel(inputs, outputs)
assert isinstance(model, CustomModel)
model.compile(optimizer=keras.optimizers.Adam(1e-2))
history = model.fit(x, y, epochs=8, batch_size=50, verbose=0)

assert calls["train"] > 0, calls
assert set(history.history) == {"loss", "mae"}, history.history
losses = history.history["loss"]
assert losses[-1] < losses[0] * 0.3, losses

results = model.evaluate(x, y, batch_size=50, verbose=0, return_dict=True)
assert calls["test"] > 0, calls
assert set(results) == {"loss", "mae"}, results
y_pred = model.predict(x, verbose=0)
np.testing.assert_allclose(results["mae"], np.abs(y_pred - y).mean(), rtol=1e-4)
np.testing.assert_allclose(results["loss"], ((y_pred - y) ** 2).mean(), rtol=1e-4)
print("losses", [round(v, 4) for v in losses])
