"""Callbacks inside real `fit` / `evaluate` / `predict` runs (backends that train)."""

from __future__ import annotations

import csv
import glob
import json
import os

import numpy as np
import pytest

import lamina
from lamina import callbacks
from lamina.backend import Capability
from lamina.callbacks import _tfevents as tfevents

from .conftest import build_trainable_model, dense_layer, regression_data

pytestmark = pytest.mark.requires(Capability.TRAINING)

X, Y = regression_data()


def test_fit_returns_history_and_sets_model_history():
    model = build_trainable_model()
    history = model.fit(X, Y, epochs=3, batch_size=8, verbose=0, validation_data=(X, Y))
    assert isinstance(history, callbacks.History) and model.history is history
    assert history.epoch == [0, 1, 2]
    assert set(history.history) == {"loss", "val_loss"}
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_hooks_called_in_fit_evaluate_predict():
    counts = {}

    def bump(name):
        return lambda *args: counts.__setitem__(name, counts.get(name, 0) + 1)

    names = ["on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
             "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
             "on_test_batch_end", "on_predict_begin", "on_predict_end", "on_predict_batch_end"]
    cb = callbacks.LambdaCallback(**{n: bump(n) for n in names})
    model = build_trainable_model()
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0, callbacks=[cb])
    model.evaluate(X, Y, batch_size=16, verbose=0, callbacks=[cb])
    model.predict(X, batch_size=32, verbose=0, callbacks=[cb])
    assert counts == {
        "on_train_begin": 1, "on_train_end": 1, "on_epoch_begin": 2, "on_epoch_end": 2,
        "on_train_batch_begin": 8, "on_train_batch_end": 8, "on_test_begin": 1,
        "on_test_end": 1, "on_test_batch_end": 2, "on_predict_begin": 1, "on_predict_end": 1,
        "on_predict_batch_end": 1,
    }


def test_params_and_progbar_output(capsys):
    seen = {}

    class Params(callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.update(self.params)

    model = build_trainable_model()
    model.fit(X, Y, epochs=2, batch_size=8, verbose=1, callbacks=[Params()])
    assert seen == {"verbose": 1, "epochs": 2, "steps": 4}
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out and "4/4" in out and "loss:" in out


def test_early_stopping_stops_fit_and_restores_best():
    model = build_trainable_model()
    weights = []
    record = callbacks.LambdaCallback(on_epoch_end=lambda e, l: weights.append(
        model.get_weights()))
    # "max" on a falling loss: epoch 0 is the best, epoch 1 does not improve
    stop = callbacks.EarlyStopping(monitor="loss", mode="max", patience=1,
                                   restore_best_weights=True)
    history = model.fit(X, Y, epochs=10, batch_size=8, verbose=0, callbacks=[record, stop])
    assert history.epoch == [0, 1] and stop.stopped_epoch == 1
    for got, want in zip(model.get_weights(), weights[0]):
        np.testing.assert_allclose(got, want)


def test_learning_rate_scheduler_in_fit():
    model = build_trainable_model()
    cb = callbacks.LearningRateScheduler(lambda epoch, lr: 0.05 / (epoch + 1))
    history = model.fit(X, Y, epochs=3, batch_size=8, verbose=0, callbacks=[cb])
    np.testing.assert_allclose(history.history["learning_rate"], [0.05, 0.025, 0.05 / 3],
                               rtol=1e-6)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.05 / 3)


def test_reduce_lr_on_plateau_in_fit():
    model = build_trainable_model()
    start = float(model.optimizer.learning_rate.numpy())
    cb = callbacks.ReduceLROnPlateau(monitor="loss", mode="max", factor=0.5, patience=1)
    history = model.fit(X, Y, epochs=3, batch_size=8, verbose=0, callbacks=[cb])
    # logs hold the rate each epoch ran with; reductions follow epochs 1 and 2
    np.testing.assert_allclose(history.history["learning_rate"],
                               [start, start, start * 0.5], rtol=1e-6)
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(start * 0.25)


def test_terminate_on_nan_in_fit(capsys):
    model = build_trainable_model()
    x = X.copy()
    x[9] = np.nan  # the second batch of 8
    seen = []
    counter = callbacks.LambdaCallback(on_train_batch_end=lambda b, l: seen.append(b))
    history = model.fit(x, Y, epochs=3, batch_size=8, shuffle=False, verbose=0,
                        callbacks=[callbacks.TerminateOnNaN(), counter])
    assert seen == [0, 1] and history.epoch == [0]
    assert "Batch 1: Invalid loss" in capsys.readouterr().out


def test_csv_logger_in_fit(tmp_path):
    model = build_trainable_model()
    path = tmp_path / "log.csv"
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0, validation_split=0.25,
              callbacks=[callbacks.CSVLogger(path)])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1"]
    assert float(rows[1]["loss"]) > 0 and float(rows[1]["val_loss"]) > 0


def test_tensorboard_in_fit(tmp_path):
    model = build_trainable_model()
    cb = callbacks.TensorBoard(tmp_path, histogram_freq=1, update_freq="batch")
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0, validation_data=(X, Y), callbacks=[cb])
    train = []
    for path in glob.glob(str(tmp_path / "train" / "events.out.tfevents.*")):
        train.extend(tfevents.read_events(path))
    tags = {(e["step"], v["tag"]) for e in train for v in e["values"]}
    assert {(0, "epoch_loss"), (1, "epoch_loss"), (8, "batch_loss")} <= tags
    assert (1, "dense/kernel/histogram") in tags
    graph = [v for e in train for v in e["values"] if v["tag"] == "keras"]
    assert json.loads(graph[0]["tensor_string"][0])["class_name"] == "Sequential"
    val = glob.glob(str(tmp_path / "validation" / "events.out.tfevents.*"))
    assert val and any(v["tag"] == "epoch_loss" for e in tfevents.read_events(val[0])
                       for v in e["values"])


class Stop(Exception):
    pass


def crash_at(epoch):
    def hook(e, logs=None):
        if e == epoch:
            raise Stop
    return callbacks.LambdaCallback(on_epoch_begin=hook)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_backup_and_restore_resumes_fit_with_same_result(tmp_path, optimizer):
    lamina.utils.set_random_seed(1)
    reference = build_trainable_model(optimizer=optimizer)
    initial = reference.get_weights()
    reference.fit(X, Y, epochs=4, batch_size=8, shuffle=False, verbose=0)

    def fresh():
        model = build_trainable_model(optimizer=optimizer)
        model.set_weights(initial)
        return model

    model = fresh()
    backup = tmp_path / "backup"
    with pytest.raises(Stop):
        model.fit(X, Y, epochs=4, batch_size=8, shuffle=False, verbose=0,
                  callbacks=[callbacks.BackupAndRestore(backup), crash_at(2)])
    resumed = fresh()
    history = resumed.fit(X, Y, epochs=4, batch_size=8, shuffle=False, verbose=0,
                          callbacks=[callbacks.BackupAndRestore(backup)])
    assert history.epoch == [2, 3]
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(resumed.optimizer.iterations.numpy(),
                                  reference.optimizer.iterations.numpy())
    assert not os.path.exists(backup)


def test_backup_and_restore_into_unbuilt_subclassed_model(tmp_path):
    build_trainable_model()  # skips while the stack is incomplete
    dense = dense_layer()

    class Net(lamina.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.head = dense(1, kernel_initializer="ones")

        def call(self, x):
            return self.head(x)

    def fresh():
        model = Net()
        model.compile(optimizer="adam", loss="mse")
        return model

    reference = fresh()
    reference.fit(X, Y, epochs=3, batch_size=8, shuffle=False, verbose=0)
    backup = tmp_path / "b"
    with pytest.raises(Stop):
        fresh().fit(X, Y, epochs=3, batch_size=8, shuffle=False, verbose=0,
                    callbacks=[callbacks.BackupAndRestore(backup), crash_at(1)])
    resumed = fresh()
    assert not resumed.built
    history = resumed.fit(X, Y, epochs=3, batch_size=8, shuffle=False, verbose=0,
                          callbacks=[callbacks.BackupAndRestore(backup)])
    assert history.epoch == [1, 2]
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_swap_ema_weights_for_evaluation():
    from lamina import optimizers

    model = build_trainable_model(optimizer=optimizers.SGD(0.05, use_ema=True,
                                                           ema_momentum=0.5))
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0)
    raw = model.get_weights()
    averages = [v.numpy() for v in model.optimizer._ema]
    assert not all(np.allclose(a, r) for a, r in zip(averages, raw))
    seen = []
    probe = callbacks.LambdaCallback(on_test_batch_end=lambda b, l: seen.append(
        model.get_weights()))
    model.evaluate(X, Y, batch_size=32, verbose=0,
                   callbacks=[callbacks.SwapEMAWeights(), probe])
    for got, want in zip(seen[0], averages):
        np.testing.assert_allclose(got, want)
    for got, want in zip(model.get_weights(), raw):  # swapped back after evaluation
        np.testing.assert_allclose(got, want)


def test_model_checkpoint_in_fit(tmp_path):
    from lamina.saving import facade

    try:
        facade.support()
    except ImportError as e:
        pytest.skip(str(e))
    model = build_trainable_model()
    path = str(tmp_path / "w-{epoch}.weights.h5")
    model.fit(X, Y, epochs=2, batch_size=8, verbose=0,
              callbacks=[callbacks.ModelCheckpoint(path, save_weights_only=True)])
    assert sorted(os.listdir(tmp_path)) == ["w-1.weights.h5", "w-2.weights.h5"]
    other = build_trainable_model()
    other.load_weights(str(tmp_path / "w-2.weights.h5"))
    for got, want in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want)
