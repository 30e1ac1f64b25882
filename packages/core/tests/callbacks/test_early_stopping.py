"""`EarlyStopping` fed with epoch logs (no training needed)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import callbacks


def run(cb, model, values, key="val_loss"):
    """Feed one value per epoch; return the epoch at which training stopped (or None)."""
    cbl = callbacks.CallbackList([cb], model=model)
    cbl.on_train_begin()
    for epoch, value in enumerate(values):
        model.kernel.assign(np.full(3, float(epoch), "float32"))
        cbl.on_epoch_end(epoch, {key: value})
        if model.stop_training:
            cbl.on_train_end()
            return epoch
    cbl.on_train_end()
    return None


def test_stops_after_patience_without_improvement(fake_model):
    cb = callbacks.EarlyStopping(patience=2)
    assert run(cb, fake_model, [1.0, 0.5, 0.6, 0.7, 0.4]) == 3
    assert cb.stopped_epoch == 3 and cb.best == 0.5 and cb.best_epoch == 1


def test_patience_zero_stops_on_first_non_improvement(fake_model):
    assert run(callbacks.EarlyStopping(), fake_model, [1.0, 0.9, 0.95]) == 2


def test_min_delta_sets_what_counts_as_improvement(fake_model):
    cb = callbacks.EarlyStopping(min_delta=0.1, patience=1)
    # 0.95 improves by less than 0.1 over the best (1.0): not an improvement
    assert run(cb, fake_model, [1.0, 0.95, 0.92]) == 1
    fake_model.stop_training = False
    assert run(callbacks.EarlyStopping(patience=1), fake_model, [1.0, 0.95, 0.96]) == 2


def test_max_mode_and_auto_mode_from_metric_direction(fake_model):
    class Acc:
        name = "accuracy"
        _direction = "up"

    fake_model.metrics = [Acc()]
    cb = callbacks.EarlyStopping(monitor="val_accuracy", patience=1)
    assert run(cb, fake_model, [0.5, 0.6, 0.55, 0.58], key="val_accuracy") == 2
    fake_model.stop_training = False
    cb = callbacks.EarlyStopping(monitor="score", mode="max", patience=0)
    assert run(cb, fake_model, [1.0, 2.0, 1.5], key="score") == 2


def test_auto_mode_fails_for_unknown_metric(fake_model):
    cb = callbacks.EarlyStopping(monitor="val_mystery")
    with pytest.raises(ValueError, match="mode='max'"):
        run(cb, fake_model, [1.0], key="val_mystery")


def test_baseline_must_be_beaten(fake_model):
    # improvements above the baseline do not reset the patience counter
    assert run(callbacks.EarlyStopping(patience=2), fake_model, [0.9, 0.8, 0.85]) is None
    cb = callbacks.EarlyStopping(baseline=0.5, patience=2)
    assert run(cb, fake_model, [0.9, 0.8, 0.85]) == 2


def test_start_from_epoch_ignores_warm_up(fake_model):
    cb = callbacks.EarlyStopping(start_from_epoch=3)
    assert run(cb, fake_model, [1.0, 2.0, 3.0, 4.0, 5.0]) == 4


def test_restore_best_weights(fake_model):
    cb = callbacks.EarlyStopping(patience=1, restore_best_weights=True, verbose=1)
    assert run(cb, fake_model, [1.0, 0.2, 0.5, 0.6]) == 2
    np.testing.assert_array_equal(fake_model.kernel.numpy(), np.full(3, 1.0))  # epoch 1


def test_restores_best_even_without_stopping(fake_model):
    cb = callbacks.EarlyStopping(patience=5, restore_best_weights=True)
    assert run(cb, fake_model, [1.0, 0.2, 0.5]) is None
    np.testing.assert_array_equal(fake_model.kernel.numpy(), np.full(3, 1.0))


def test_missing_monitor_warns_and_does_not_stop(fake_model):
    cb = callbacks.EarlyStopping(monitor="val_loss")
    with pytest.warns(UserWarning, match="Available metrics are: loss"):
        assert run(cb, fake_model, [1.0, 2.0], key="loss") is None


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="mode='best'"):
        callbacks.EarlyStopping(mode="best")
    with pytest.raises(ValueError, match="patience=-1"):
        callbacks.EarlyStopping(patience=-1)
    with pytest.raises(ValueError, match=r"start_from_epoch=1\.5"):
        callbacks.EarlyStopping(start_from_epoch=1.5)
