"""In a job of several processes, only process 0 writes checkpoints and logs and prints the
progress bar; every process still restores a backup."""

from __future__ import annotations

import pytest

from lamina import callbacks
from lamina.backend import Capability
from lamina.callbacks import backup_and_restore, model_checkpoint
from lamina.distribution import engine

from .conftest import build_trainable_model, regression_data

pytestmark = pytest.mark.requires(Capability.TRAINING)

X, Y = regression_data()


def _writers(folder: object) -> list[callbacks.Callback]:
    return [
        callbacks.ModelCheckpoint(f"{folder}/m.weights.h5", save_weights_only=True),
        callbacks.CSVLogger(f"{folder}/log.csv"),
        callbacks.TensorBoard(f"{folder}/tb"),
        callbacks.BackupAndRestore(f"{folder}/backup", delete_checkpoint=False),
    ]


def _as_process_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "is_process_zero", lambda: False)
    monkeypatch.setattr(backup_and_restore, "is_process_zero", lambda: False)
    monkeypatch.setattr(model_checkpoint, "is_process_zero", lambda: False)


def test_only_process_zero_writes_and_prints(tmp_path, monkeypatch, capsys) -> None:
    model = build_trainable_model()
    _as_process_one(monkeypatch)
    history = model.fit(X, Y, epochs=2, batch_size=8, verbose=1, callbacks=_writers(tmp_path))
    assert len(history.history["loss"]) == 2  # it trained, and kept its History
    assert list(tmp_path.iterdir()) == []
    assert capsys.readouterr().out == ""

    monkeypatch.undo()  # process 0: the same run writes everything and prints
    model.fit(X, Y, epochs=2, batch_size=8, verbose=1, callbacks=_writers(tmp_path))
    assert {p.name for p in tmp_path.iterdir()} == {"m.weights.h5", "log.csv", "tb", "backup"}
    assert "Epoch 2/2" in capsys.readouterr().out

    # Another process resumes from process 0's backup (the run is done: no epoch runs).
    _as_process_one(monkeypatch)
    resumed = model.fit(X, Y, epochs=2, batch_size=8, verbose=0, callbacks=_writers(tmp_path))
    assert resumed.history.get("loss", []) == []
