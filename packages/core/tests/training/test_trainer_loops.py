"""evaluate / predict / *_on_batch, progress output, and the overridable step methods."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability

training = pytest.mark.requires(Capability.TRAINING)

RNG = np.random.default_rng(2)
X = RNG.normal(size=(30, 3)).astype("float32")
Y = (X.sum(axis=1, keepdims=True) > 0).astype("float32")


def _model(seed: int = 0) -> lamina.Model:
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="binary_crossentropy",
                  metrics=["accuracy"])
    return model


def _bce(p):
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-(Y * np.log(p) + (1 - Y) * np.log(1 - p)).mean())


def test_evaluate_list_dict_and_partial_last_batch():
    model = _model()
    pred = model.predict(X, verbose=0)
    loss, accuracy = model.evaluate(X, Y, batch_size=8, verbose=0)  # 8+8+8+6
    np.testing.assert_allclose(loss, _bce(pred), rtol=1e-5)
    np.testing.assert_allclose(accuracy, ((pred > 0.5) == Y).mean(), atol=1e-6)
    logs = model.evaluate(X, Y, batch_size=7, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "accuracy"]
    assert all(isinstance(v, float) for v in logs.values())
    np.testing.assert_allclose(logs["loss"], loss, rtol=1e-5)
    steps_logs = model.evaluate(X, Y, batch_size=10, steps=1, verbose=0, return_dict=True)
    np.testing.assert_allclose(steps_logs["loss"], _bce_rows(pred, slice(0, 10)), rtol=1e-5)


def _bce_rows(p, rows):
    p = np.clip(p[rows], 1e-7, 1 - 1e-7)
    y = Y[rows]
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def test_evaluate_with_only_a_loss_returns_a_scalar():
    model = _model()
    model.compile(loss="mse")
    value = model.evaluate(X, Y, verbose=0)
    assert isinstance(value, float)


def test_predict_batches_nested_outputs_and_concatenates_them():
    lamina.utils.set_random_seed(0)
    inputs = layers.Input((3,))
    model = lamina.Model(inputs, {"sum": layers.Dense(1)(inputs),
                                  "pair": [layers.Dense(2)(inputs), layers.Dense(4)(inputs)]})
    out = model.predict(X, batch_size=7, verbose=0)  # 7+7+7+7+2
    assert set(out) == {"sum", "pair"}
    assert out["sum"].shape == (30, 1)
    assert [a.shape for a in out["pair"]] == [(30, 2), (30, 4)]
    whole = model.predict_on_batch(X)
    np.testing.assert_allclose(out["pair"][1], whole["pair"][1], rtol=1e-5, atol=1e-6)
    assert isinstance(whole["sum"], np.ndarray)


def test_predict_with_steps_and_empty_input():
    model = _model()
    assert model.predict(X, batch_size=4, steps=2, verbose=0).shape == (8, 1)
    with pytest.raises(ValueError):
        model.predict(X[:0], verbose=0)


def test_test_on_batch_resets_metrics_each_call():
    model = _model()
    pred = model.predict(X, verbose=0)
    first = model.test_on_batch(X[:10], Y[:10], return_dict=True)
    second = model.test_on_batch(X[10:], Y[10:], return_dict=True)
    np.testing.assert_allclose(first["loss"], _bce_rows(pred, slice(0, 10)), rtol=1e-5)
    np.testing.assert_allclose(second["loss"], _bce_rows(pred, slice(10, 30)), rtol=1e-5)
    loss, accuracy = model.test_on_batch(X, Y)
    np.testing.assert_allclose(accuracy, ((pred > 0.5) == Y).mean(), atol=1e-6)
    np.testing.assert_allclose(loss, _bce(pred), rtol=1e-5)


@training
def test_train_on_batch_updates_weights_and_orders_values_like_metrics_names():
    model = _model()
    before = model.predict(X, verbose=0)
    loss, accuracy = model.train_on_batch(X, Y)
    np.testing.assert_allclose(loss, _bce(before), rtol=1e-5)
    assert model.metrics_names == ["loss", "accuracy"]
    assert 0.0 <= accuracy <= 1.0
    assert int(model.optimizer.iterations.numpy()) == 1
    after = model.predict(X, verbose=0)
    assert _bce(after) < _bce(before)
    logs = model.train_on_batch(X, Y, class_weight={0: 1.0, 1: 1.0}, return_dict=True)
    assert list(logs) == ["loss", "accuracy"] or set(logs) == {"loss", "accuracy"}


@training
def test_verbose_modes_print_progress(capsys):
    model = _model()
    model.fit(X, Y, epochs=2, batch_size=10, verbose=0, validation_data=(X, Y))
    assert capsys.readouterr().out == ""
    model.fit(X, Y, epochs=2, batch_size=10, verbose=2, validation_data=(X, Y))
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    epoch_lines = [line for line in out.splitlines() if line.startswith("3/3 - ")]
    assert len(epoch_lines) == 2
    assert all("loss:" in line and "val_accuracy:" in line for line in epoch_lines)
    model.fit(X, Y, epochs=1, batch_size=10, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch" not in out  # as in Keras, one epoch prints no epoch header
    assert "3/3" in out and "loss:" in out and out.index("loss:") < out.index("accuracy:")
    model.evaluate(X, Y, verbose=1)
    assert "loss:" in capsys.readouterr().out
    model.evaluate(X, Y, verbose=0)
    model.predict(X, verbose=0)
    assert capsys.readouterr().out == ""


class _Overrides(lamina.Model):
    """A subclassed model that replaces the loss, the metrics and both inference steps."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(1)
        self.abs_error = lamina.metrics.Mean(name="abs_error")
        self.test_calls = 0

    def call(self, x, training=False):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        # the sum of squared errors instead of the compiled loss
        return ops.sum(ops.square(y - y_pred))

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        self.abs_error.update_state(ops.mean(ops.abs(y - y_pred)))
        logs = super().compute_metrics(x, y, y_pred, sample_weight)
        return logs

    def test_step(self, data):
        self.test_calls += 1
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, training=False)
        self._loss_tracker.update_state(loss)
        return {"sse": loss, **self.compute_metrics(x, y, y_pred)}

    def predict_step(self, data):
        (x,) = data if isinstance(data, tuple) else (data,)
        return {"value": self(x), "doubled": 2.0 * self(x)}


def _overrides():
    lamina.utils.set_random_seed(4)
    model = _Overrides()
    model.compile(optimizer=lamina.optimizers.SGD(0.01), loss="mse")
    return model


def test_custom_test_step_compute_loss_and_metrics_in_evaluate():
    model = _overrides()
    logs = model.evaluate(X, Y, batch_size=30, verbose=0, return_dict=True)
    pred = model.predict(X, batch_size=30, verbose=0)["value"]
    assert model.test_calls >= 1
    sse = float(((Y - pred) ** 2).sum())
    np.testing.assert_allclose(logs["sse"], sse, rtol=1e-4)
    np.testing.assert_allclose(logs["loss"], sse, rtol=1e-4)
    np.testing.assert_allclose(logs["abs_error"], np.abs(Y - pred).mean(), rtol=1e-5)


def test_custom_predict_step_output_structure_is_kept():
    model = _overrides()
    out = model.predict(X, batch_size=8, verbose=0)
    assert set(out) == {"value", "doubled"}
    np.testing.assert_allclose(out["doubled"], 2 * out["value"], rtol=1e-6)
    assert out["value"].shape == (30, 1)
    on_batch = model.predict_on_batch(X[:5])
    np.testing.assert_allclose(on_batch["value"], out["value"][:5], rtol=1e-5, atol=1e-6)


@training
def test_custom_compute_loss_drives_the_gradient_step():
    model = _overrides()
    model.build((None, 3))
    kernel, bias = (w.copy() for w in model.get_weights())
    model.fit(X, Y, batch_size=30, epochs=1, shuffle=False, verbose=0)
    # d/dW sum((y - xW - b)^2) = -2 x^T (y - xW - b): one SGD step at lr 0.01
    residual = Y - (X @ kernel + bias)
    expected_kernel = kernel + 0.01 * 2 * X.T @ residual
    expected_bias = bias + 0.01 * 2 * residual.sum(axis=0)
    new_kernel, new_bias = model.get_weights()
    np.testing.assert_allclose(new_kernel, expected_kernel, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new_bias, expected_bias, rtol=1e-4, atol=1e-5)
    history = model.fit(X, Y, batch_size=10, epochs=1, validation_data=(X, Y), verbose=0)
    assert {"loss", "abs_error", "val_sse", "val_loss", "val_abs_error"} <= set(
        history.history
    )


@training
def test_model_losses_from_add_loss_join_the_compiled_loss():
    class Penalized(layers.Layer):
        def call(self, x):
            self.add_loss(ops.sum(x) * 0.0 + 5.0)
            return x

    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([layers.Input((3,)), Penalized(), layers.Dense(1)])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse")
    pred = model.predict(X, verbose=0)
    history = model.fit(X, Y, batch_size=30, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], ((pred - Y) ** 2).mean() + 5.0,
                               rtol=1e-5)
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["loss"], ((pred - Y) ** 2).mean() + 5.0, rtol=1e-5)
