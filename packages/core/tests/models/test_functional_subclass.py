"""A `Model` subclass built from ``(inputs, outputs)``: a functional model of that class.

Keras 3 programs write ``class CustomModel(keras.Model): def train_step(...)`` and then
``CustomModel(inputs, outputs)``. The model runs its graph, and its own `train_step`,
`test_step` and `predict_step` run in `fit`, `evaluate` and `predict`. Each backend's
`train_step` below is written the way that backend's Keras 3 guide writes it.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability
from lamina.backend.registry import current
from lamina.models.functional import Functional
from lamina.testing import assert_allclose, assert_trains_alike

BACKEND = current().name
RNG = np.random.default_rng(0)
X = RNG.normal(size=(32, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-1.0], [2.0]], "float32")).astype("float32")


def _update_metrics(model, y, y_pred, loss):
    for metric in model.metrics:
        if metric.name == "loss":
            metric.update_state(loss)
        else:
            metric.update_state(y, y_pred)
    return {m.name: m.result() for m in model.metrics}


@lamina.saving.register_keras_serializable(package="functional_subclass_test")
class CustomModel(lamina.Model):
    if BACKEND == "jax":

        def train_step(self, state, data):
            import jax

            trainable, non_trainable, optimizer_vars, metrics_vars = state
            x, y = data

            def loss_fn(tv, ntv):
                y_pred, ntv = self.stateless_call(tv, ntv, x, training=True)
                return self.compute_loss(x, y, y_pred), (y_pred, ntv)

            (loss, (y_pred, non_trainable)), grads = jax.value_and_grad(
                loss_fn, has_aux=True
            )(trainable, non_trainable)
            trainable, optimizer_vars = self.optimizer.stateless_apply(
                optimizer_vars, grads, trainable
            )
            logs, new_metrics_vars = {}, []
            for metric in self.metrics:
                own = metrics_vars[len(new_metrics_vars):][: len(metric.variables)]
                if metric.name == "loss":
                    own = metric.stateless_update_state(own, loss)
                else:
                    own = metric.stateless_update_state(own, y, y_pred)
                logs[metric.name] = metric.stateless_result(own)
                new_metrics_vars += own
            logs["custom"] = 1.0
            return logs, (trainable, non_trainable, optimizer_vars, new_metrics_vars)

    elif BACKEND == "torch":

        def train_step(self, data):
            import torch

            x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            loss.backward()
            trainable = list(self.trainable_weights)
            with torch.no_grad():
                self.optimizer.apply([v.value.grad for v in trainable], trainable)
            return {**_update_metrics(self, y, y_pred, loss), "custom": 1.0}

    elif BACKEND == "tensorflow":

        def train_step(self, data):
            import tensorflow as tf

            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(gradients, self.trainable_variables)
            return {**_update_metrics(self, y, y_pred, loss), "custom": 1.0}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        return {"abs_error": ops.mean(ops.abs(y_pred - y))}

    def predict_step(self, data):
        x = data[0] if isinstance(data, tuple) else data
        return 2.0 * self(x, training=False)


def _graph(seed=0):
    lamina.utils.set_random_seed(seed)
    inputs = lamina.Input((3,))
    hidden = layers.Dense(4, activation="relu")(inputs)
    return inputs, layers.Dense(1)(hidden)


def _compiled(model, run_eagerly=False):
    model.compile(
        optimizer=lamina.optimizers.SGD(0.05), loss="mse", metrics=["mae"], run_eagerly=run_eagerly
    )
    return model


def test_positional_and_keyword_construction_make_a_functional_model_of_the_class():
    inputs, outputs = _graph()
    model = CustomModel(inputs, outputs)
    assert type(model) is CustomModel
    assert isinstance(model, Functional)
    plain = lamina.Model(inputs, outputs)
    assert [layer.name for layer in model.layers] == [layer.name for layer in plain.layers]
    named = CustomModel(inputs=inputs, outputs=outputs, name="named")
    assert named.name == "named"
    assert len(named.trainable_weights) == 4
    assert_allclose(ops.convert_to_numpy(named(X)), ops.convert_to_numpy(model(X)))


@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.parametrize("run_eagerly", [False, True])
def test_the_subclass_train_step_runs_in_fit_and_trains_like_the_built_in_one(run_eagerly):
    custom = _compiled(CustomModel(*_graph()), run_eagerly)
    reference = _compiled(lamina.Model(*_graph()))
    history = assert_trains_alike(custom, reference, X, Y)
    assert set(history) == {"loss", "mae", "custom"}  # "custom" comes from the override
    logs = custom.train_on_batch(X[:8], Y[:8], return_dict=True)
    assert logs["custom"] == 1.0


def test_the_subclass_test_and_predict_steps_run_in_evaluate_and_predict():
    model = _compiled(CustomModel(*_graph()))
    expected = 2.0 * ops.convert_to_numpy(model(X))
    assert_allclose(model.predict(X, batch_size=8, verbose=0), expected)
    logs = model.evaluate(X, Y, batch_size=32, verbose=0, return_dict=True)
    assert list(logs) == ["abs_error"]
    np.testing.assert_allclose(logs["abs_error"], np.abs(expected / 2.0 - Y).mean(), rtol=1e-5)


def test_a_subclass_with_its_own_init_forwarding_inputs_and_outputs():
    class WithTracker(lamina.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.seen = lamina.metrics.Sum(name="seen")

        def test_step(self, data):
            x, _ = data
            self.seen.update_state(ops.ones((ops.shape(x)[0],)))
            return {"seen": self.seen.result()}

    model = _compiled(WithTracker(*_graph(), name="tracked"))
    assert model.name == "tracked" and isinstance(model, Functional)
    assert model.evaluate(X, Y, batch_size=8, verbose=0, return_dict=True) == {"seen": 32.0}


def test_positional_arguments_that_are_not_tensors_leave_the_class_alone():
    class Plain(lamina.Model):
        def call(self, x):
            return x

    with pytest.raises(ValueError, match="keyword arguments only"):
        Plain(1, 2)
    assert not issubclass(Plain, Functional)

    class TwoNumbers(lamina.Model):
        def __init__(self, units, scale):
            super().__init__()
            self.dense = layers.Dense(units)
            self.scale = scale

        def call(self, x):
            return self.scale * self.dense(x)

    model = TwoNumbers(2, 3.0)
    assert not isinstance(model, Functional)
    assert tuple(model(X).shape) == (32, 2)


def test_config_round_trip_rebuilds_the_subclass():
    model = CustomModel(*_graph(), name="custom_config")
    config = lamina.saving.serialize_keras_object(model)
    assert config["registered_name"] == "functional_subclass_test>CustomModel"
    clone = lamina.saving.deserialize_keras_object(config)
    assert type(clone) is CustomModel and clone.name == "custom_config"
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    clone.set_weights(model.get_weights())
    assert_allclose(clone.predict(X, verbose=0), model.predict(X, verbose=0))
    direct = CustomModel.from_config(model.get_config())
    assert type(direct) is CustomModel


def test_save_and_load_keep_the_class_and_its_steps(tmp_path):
    model = _compiled(CustomModel(*_graph()))
    path = tmp_path / "custom.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert type(loaded) is CustomModel
    assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert list(loaded.evaluate(X, Y, verbose=0, return_dict=True)) == ["abs_error"]
