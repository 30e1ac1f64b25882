"""`LearningRateScheduler`, `ReduceLROnPlateau` and `TerminateOnNaN` on epoch/batch logs."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import callbacks


def lr(model):
    return float(model.optimizer.learning_rate.numpy())


def test_scheduler_sets_rate_each_epoch_and_logs_it(fake_model, capsys):
    cb = callbacks.LearningRateScheduler(lambda epoch, rate: rate * 0.5, verbose=1)
    cbl = callbacks.CallbackList([cb], model=fake_model)
    rates = []
    for epoch in range(3):
        cbl.on_epoch_begin(epoch)
        logs = {"loss": 1.0}
        cbl.on_epoch_end(epoch, logs)
        rates.append(logs["learning_rate"])
    np.testing.assert_allclose(rates, [0.05, 0.025, 0.0125], rtol=1e-6)
    assert "setting learning rate to" in capsys.readouterr().out


def test_scheduler_accepts_one_argument_schedules(fake_model):
    cb = callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))
    cbl = callbacks.CallbackList([cb], model=fake_model)
    cbl.on_epoch_begin(2)
    assert lr(fake_model) == pytest.approx(0.03)


def test_scheduler_rejects_non_numbers(fake_model):
    with pytest.raises(TypeError, match="schedule=3"):
        callbacks.LearningRateScheduler(3)
    cb = callbacks.LearningRateScheduler(lambda epoch, rate: "fast")
    with pytest.raises(ValueError, match="'fast'"):
        callbacks.CallbackList([cb], model=fake_model).on_epoch_begin(0)


def test_scheduler_needs_an_optimizer(fake_model):
    fake_model.optimizer = None
    cb = callbacks.LearningRateScheduler(lambda e, r: r)
    with pytest.raises(ValueError, match="optimizer=None"):
        callbacks.CallbackList([cb], model=fake_model).on_epoch_begin(0)


def plateau(cb, model, values):
    cbl = callbacks.CallbackList([cb], model=model)
    cbl.on_train_begin()
    rates = []
    for epoch, value in enumerate(values):
        logs = {"val_loss": value}
        cbl.on_epoch_end(epoch, logs)
        rates.append(round(lr(model), 7))
    return rates


def test_plateau_reduces_after_patience(fake_model):
    cb = callbacks.ReduceLROnPlateau(factor=0.5, patience=2)
    rates = plateau(cb, fake_model, [1.0, 0.9, 0.95, 0.93, 0.94, 0.96])
    # epochs 2 and 3 do not improve -> reduce at 3; epochs 4, 5 -> reduce again at 5
    assert rates == [0.1, 0.1, 0.1, 0.05, 0.05, 0.025]


def test_plateau_cooldown_and_min_lr(fake_model):
    cb = callbacks.ReduceLROnPlateau(factor=0.1, patience=1, cooldown=2, min_lr=0.005)
    rates = plateau(cb, fake_model, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    # reduce at 1 (to 0.01); epoch 2 is cooldown; reduce at 3 (floored at min_lr), never below
    assert rates == [0.1, 0.01, 0.01, 0.005, 0.005, 0.005]


def test_plateau_max_mode_for_accuracy(fake_model):
    cb = callbacks.ReduceLROnPlateau(monitor="val_acc", factor=0.5, patience=1)
    cbl = callbacks.CallbackList([cb], model=fake_model)
    cbl.on_train_begin()
    cbl.on_epoch_end(0, {"val_acc": 0.5})
    cbl.on_epoch_end(1, {"val_acc": 0.7})
    assert lr(fake_model) == pytest.approx(0.1)
    cbl.on_epoch_end(2, {"val_acc": 0.6})
    assert lr(fake_model) == pytest.approx(0.05)


def test_plateau_warns_on_missing_metric_and_logs_rate(fake_model):
    cb = callbacks.ReduceLROnPlateau(patience=0)
    logs = {"loss": 1.0}
    with pytest.warns(UserWarning, match="val_loss"):
        callbacks.CallbackList([cb], model=fake_model).on_epoch_end(0, logs)
    assert logs["learning_rate"] == pytest.approx(0.1)


def test_plateau_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"factor=1\.0"):
        callbacks.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(ValueError, match="cooldown=-1"):
        callbacks.ReduceLROnPlateau(cooldown=-1)
    with pytest.raises(ValueError, match="bogus"):
        callbacks.ReduceLROnPlateau(bogus=1)
    with pytest.warns(UserWarning, match="'sideways'"):
        assert callbacks.ReduceLROnPlateau(mode="sideways").mode == "auto"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), np.float32("nan")])
def test_terminate_on_nan_stops(fake_model, bad, capsys):
    cbl = callbacks.CallbackList([callbacks.TerminateOnNaN()], model=fake_model)
    cbl.on_train_batch_end(0, {"loss": 1.0})
    assert not fake_model.stop_training
    cbl.on_train_batch_end(1, {"loss": bad})
    assert fake_model.stop_training
    assert "Batch 1: Invalid loss" in capsys.readouterr().out


def test_terminate_on_nan_can_raise(fake_model):
    cbl = callbacks.CallbackList([callbacks.TerminateOnNaN(raise_error=True)], model=fake_model)
    with pytest.raises(RuntimeError, match="Batch 4"):
        cbl.on_train_batch_end(4, {"loss": float("nan")})
