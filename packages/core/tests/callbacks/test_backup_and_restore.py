"""`BackupAndRestore` with a simulated training loop (the same hooks `fit` calls)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from lamina import callbacks

from .conftest import FakeModel, FakeOptimizer


class Interrupt(Exception):
    pass


def train(model, cb, epochs=4, steps=3, fail_at=None):
    """A deterministic loop: each step adds lr * (epoch + 1) to the kernel."""
    cbl = callbacks.CallbackList([cb], model=model, epochs=epochs, steps=steps)
    cbl.on_train_begin()
    start = cbl.initial_epoch_override() or 0
    ran = []
    for epoch in range(start, epochs):
        cbl.on_epoch_begin(epoch)
        for step in range(steps):
            if fail_at == (epoch, step):
                raise Interrupt
            cbl.on_train_batch_begin(step)
            if not model.optimizer.built:
                model.optimizer.build(model.trainable_variables)
            rate = model.optimizer.learning_rate.numpy()
            model.kernel.assign(model.kernel.numpy() + rate * (epoch + 1))
            model.optimizer.iterations.assign(model.optimizer.iterations.numpy() + 1)
            model.optimizer._slots[0].assign(model.kernel.numpy() * 2)
            cbl.on_train_batch_end(step, {"loss": 1.0})
        ran.append(epoch)
        cbl.on_epoch_end(epoch, {"loss": 1.0})
    cbl.on_train_end()
    return ran


def state(model):
    return [v.numpy().copy() for v in model.variables + model.optimizer.variables]


def test_resume_after_interrupt_gives_same_result(tmp_path):
    reference = FakeModel()
    train(reference, callbacks.BackupAndRestore(tmp_path / "ref"))
    model = FakeModel()
    with pytest.raises(Interrupt):
        train(model, callbacks.BackupAndRestore(tmp_path / "b"), fail_at=(2, 1))
    meta = json.loads((tmp_path / "b" / "training_metadata.json").read_text())
    assert meta["epoch"] == 1 and meta["batch"] is None
    fresh = FakeModel()  # a new process: fresh variables
    ran = train(fresh, callbacks.BackupAndRestore(tmp_path / "b"))
    assert ran == [2, 3]
    for got, want in zip(state(fresh), state(reference)):
        np.testing.assert_allclose(got, want)
    assert not os.path.exists(tmp_path / "b")  # deleted after a completed fit


def test_keep_checkpoint_when_asked(tmp_path):
    train(FakeModel(), callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False), epochs=2)
    meta = json.loads((tmp_path / "training_metadata.json").read_text())
    assert meta["epoch"] == 1
    # a finished run resumes past the end: nothing more runs
    assert train(FakeModel(), callbacks.BackupAndRestore(tmp_path), epochs=2) == []


def test_batch_save_freq_reruns_the_interrupted_epoch(tmp_path):
    model = FakeModel()
    cb = callbacks.BackupAndRestore(tmp_path, save_freq=2)
    with pytest.raises(Interrupt):
        train(model, cb, epochs=3, steps=3, fail_at=(1, 2))
    meta = json.loads((tmp_path / "training_metadata.json").read_text())
    # saves after global batches 2 (epoch 0 step 1) and 4 (epoch 1 step 0)
    assert (meta["epoch"], meta["batch"]) == (1, 0)
    fresh = FakeModel()
    ran = train(fresh, callbacks.BackupAndRestore(tmp_path, save_freq=2), epochs=3)
    assert ran == [1, 2]


def test_batch_save_at_epoch_end_counts_as_epoch_end(tmp_path):
    cb = callbacks.BackupAndRestore(tmp_path, save_freq=3, delete_checkpoint=False)
    train(FakeModel(), cb, epochs=1, steps=3)
    meta = json.loads((tmp_path / "training_metadata.json").read_text())
    assert (meta["epoch"], meta["batch"]) == (0, None)


def test_double_checkpoint_falls_back_to_previous(tmp_path):
    cb = callbacks.BackupAndRestore(tmp_path, double_checkpoint=True, delete_checkpoint=False)
    train(FakeModel(), cb, epochs=2)
    assert (tmp_path / "latest.npz.bkp").exists()
    (tmp_path / "latest.npz").write_bytes(b"garbage")
    fresh = FakeModel()
    ran = train(fresh, callbacks.BackupAndRestore(tmp_path, double_checkpoint=True), epochs=3)
    assert ran == [1, 2]  # the backup of epoch 0 was used


def test_corrupt_backup_without_double_checkpoint_raises(tmp_path):
    train(FakeModel(), callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False), epochs=1)
    (tmp_path / "latest.npz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="double_checkpoint=True"):
        train(FakeModel(), callbacks.BackupAndRestore(tmp_path))


def test_backup_from_another_model_is_rejected(tmp_path):
    train(FakeModel(), callbacks.BackupAndRestore(tmp_path, delete_checkpoint=False), epochs=1)
    with pytest.raises(ValueError, match="another model"):
        train(FakeModel(FakeOptimizer(n_state=3)), callbacks.BackupAndRestore(tmp_path))


def test_unbuilt_model_restores_when_optimizer_builds(tmp_path):
    reference = FakeModel()
    train(reference, callbacks.BackupAndRestore(tmp_path / "ref"), epochs=3)
    with pytest.raises(Interrupt):
        train(FakeModel(), callbacks.BackupAndRestore(tmp_path / "b"), epochs=3, fail_at=(2, 0))

    class LazyOptimizer(FakeOptimizer):
        def __init__(self):
            super().__init__()
            self.built = False

        def build(self, variables):
            self.built = True

    fresh = FakeModel(LazyOptimizer())
    fresh.built = False
    ran = train(fresh, callbacks.BackupAndRestore(tmp_path / "b"), epochs=3)
    assert ran == [2]
    assert "build" not in vars(fresh.optimizer)  # the one-shot hook removed itself
    for got, want in zip(state(fresh), state(reference)):
        np.testing.assert_allclose(got, want)


def test_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="backup_dir=''"):
        callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="save_freq=0"):
        callbacks.BackupAndRestore(tmp_path, save_freq=0)
    with pytest.raises(ValueError, match="save_freq=True"):
        callbacks.BackupAndRestore(tmp_path, save_freq=True)
