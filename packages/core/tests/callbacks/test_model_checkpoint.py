"""`ModelCheckpoint` with a model that records what it was asked to save."""

from __future__ import annotations

import pytest

from lamina import callbacks


def fit_logs(cb, model, epochs, steps=1, batch_logs=None):
    cbl = callbacks.CallbackList([cb], model=model, epochs=len(epochs), steps=steps)
    cbl.on_train_begin()
    for epoch, logs in enumerate(epochs):
        cbl.on_epoch_begin(epoch)
        for step in range(steps):
            cbl.on_train_batch_begin(step)
            cbl.on_train_batch_end(step, batch_logs or {"loss": 1.0})
        cbl.on_epoch_end(epoch, logs)
    cbl.on_train_end()
    return model.saved


def test_saves_every_epoch_with_formatted_path(fake_model, tmp_path):
    path = str(tmp_path / "sub" / "m-{epoch:02d}-{val_loss:.2f}.lamina")
    cb = callbacks.ModelCheckpoint(path)
    saved = fit_logs(cb, fake_model, [{"val_loss": 0.5}, {"val_loss": 0.25}])
    assert saved == [
        ("model", str(tmp_path / "sub" / "m-01-0.50.lamina")),
        ("model", str(tmp_path / "sub" / "m-02-0.25.lamina")),
    ]
    assert (tmp_path / "sub").is_dir()  # the folder is created


def test_save_weights_only_calls_save_weights(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "w.weights.h5"), save_weights_only=True)
    assert fit_logs(cb, fake_model, [{"val_loss": 1.0}]) == [
        ("weights", str(tmp_path / "w.weights.h5"))
    ]


def test_save_best_only_min_and_max(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "{epoch}.keras"), save_best_only=True,
                                   verbose=1)
    saved = fit_logs(cb, fake_model, [{"val_loss": v} for v in (1.0, 0.5, 0.7, 0.4)])
    assert [p.rsplit("/", 1)[-1] for _, p in saved] == ["1.keras", "2.keras", "4.keras"]
    assert cb.best == 0.4
    fake_model.saved.clear()
    cb = callbacks.ModelCheckpoint(str(tmp_path / "{epoch}.keras"), monitor="val_acc",
                                   save_best_only=True)
    assert cb.mode == "max"
    saved = fit_logs(cb, fake_model, [{"val_acc": v} for v in (0.5, 0.4, 0.6)])
    assert [p.rsplit("/", 1)[-1] for _, p in saved] == ["1.keras", "3.keras"]


def test_initial_value_threshold(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "{epoch}.keras"), save_best_only=True,
                                   initial_value_threshold=0.6)
    saved = fit_logs(cb, fake_model, [{"val_loss": v} for v in (0.8, 0.5)])
    assert [p.rsplit("/", 1)[-1] for _, p in saved] == ["2.keras"]


def test_missing_monitor_warns_and_skips(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_best_only=True)
    with pytest.warns(UserWarning, match="val_loss"):
        assert fit_logs(cb, fake_model, [{"loss": 1.0}]) == []


def test_integer_save_freq_counts_batches_across_epochs(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}-b{batch}.keras"), save_freq=3)
    saved = fit_logs(cb, fake_model, [{}, {}], steps=4)
    # 8 batches: saves after global batches 3 and 6 = epoch 1 batch 3, epoch 2 batch 2
    assert [p.rsplit("/", 1)[-1] for _, p in saved] == ["e1-b3.keras", "e2-b2.keras"]
    assert fake_model.synced > 0


def test_unknown_format_field_raises(fake_model, tmp_path):
    cb = callbacks.ModelCheckpoint(str(tmp_path / "{nope}.keras"))
    with pytest.raises(KeyError, match="nope"):
        fit_logs(cb, fake_model, [{"loss": 1.0}])


def test_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match=r"weights\.h5"):
        callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_weights_only=True)
    with pytest.raises(ValueError, match="filepath="):
        callbacks.ModelCheckpoint(str(tmp_path / "m.h5"))
    with pytest.raises(ValueError, match="save_freq='batch'"):
        callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_freq="batch")
    with pytest.raises(ValueError, match="save_freq=0"):
        callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), save_freq=0)
    with pytest.raises(ValueError, match="mode='up'"):
        callbacks.ModelCheckpoint(str(tmp_path / "m.keras"), mode="up")
