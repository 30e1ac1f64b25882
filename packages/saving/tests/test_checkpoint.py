"""Checkpoints: restore by attribute path, deferred restore, status, optimizer, manager."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import lamina
import lamina.optimizers
from lamina.backend import Capability
from lamina.layers.core import Dense
from lamina_saving import Checkpoint, CheckpointManager, LaminaFileError, RestoreStatus


def _np(x):
    return lamina.ops.convert_to_numpy(x)


def _x(rows=5, cols=4, seed=0):
    return np.random.default_rng(seed).normal(size=(rows, cols)).astype("float32")


class TwoTower(lamina.Model):
    """Same attribute paths either way; `reverse` flips the order the layers are created in,
    so their generated names (dense_7 vs dense_8) differ between the two orders."""

    def __init__(self, reverse=False, **kwargs):
        super().__init__(**kwargs)
        if reverse:
            self.right = Dense(3)
            self.left = Dense(3)
        else:
            self.left = Dense(3)
            self.right = Dense(3)
        self.head = Dense(2)

    def call(self, x):
        return self.head(self.left(x) * self.right(x))


def test_public_names_are_the_package_classes():
    assert lamina.saving.Checkpoint is Checkpoint
    assert lamina.saving.CheckpointManager is CheckpointManager


def test_restore_by_attribute_path_across_creation_orders(tmp_path):
    x = _x()
    source = TwoTower(reverse=False)
    expected = _np(source(x))
    path = Checkpoint(model=source).save(tmp_path / "ckpt")
    assert os.path.basename(path) == "ckpt-1.ckpt.h5"
    target = TwoTower(reverse=True)
    target(x)
    # Different creation order: the auto-generated names do not line up...
    assert target.left.name != source.left.name or target.right.name != source.right.name
    status = Checkpoint(model=target).restore(path)
    # ... but the attribute paths do, so each tower gets its own values back.
    np.testing.assert_allclose(_np(target.left.kernel), _np(source.left.kernel), atol=1e-7)
    np.testing.assert_allclose(_np(target.right.kernel), _np(source.right.kernel), atol=1e-7)
    np.testing.assert_allclose(_np(target(x)), expected, rtol=1e-6, atol=1e-6)
    assert {"model/left", "model/right", "model/head"} <= set(status.matched)
    status.assert_consumed()


def test_deferred_restore_into_unbuilt_subclassed_model(tmp_path):
    x = _x()
    source = TwoTower()
    expected = _np(source(x))
    path = Checkpoint(model=source).write(tmp_path / "c.ckpt.h5")
    fresh = TwoTower(reverse=True)
    assert not fresh.built and fresh.variables == []
    status = Checkpoint(model=fresh).restore(path)
    assert isinstance(status, RestoreStatus)
    assert set(status.pending) == {"model/left", "model/right", "model/head"}
    with pytest.raises(AssertionError, match="incomplete"):
        status.assert_consumed()
    np.testing.assert_allclose(_np(fresh(x)), expected, rtol=1e-6, atol=1e-6)
    assert status.pending == []
    assert {"model/left", "model/right", "model/head"} <= set(status.matched)
    assert status.assert_consumed() is status


def test_status_reports_unused_entries_and_variables_without_values(tmp_path):
    x = _x()
    model = TwoTower()
    model(x)
    step = lamina.Variable(np.int32(7), dtype="int32", trainable=False)
    path = Checkpoint(model=model, step=step).write(tmp_path / "c.ckpt.h5")

    # A checkpoint that only asks for the model leaves the step entry unused.
    other = TwoTower()
    other(x)
    partial = Checkpoint(model=other).restore(path)
    assert "step" in partial.pending and partial.unused == partial.pending
    with pytest.raises(AssertionError, match="step"):
        partial.assert_consumed()
    partial.expect_partial()
    partial.assert_existing_objects_matched()

    # A variable the file has no value for is reported, not silently left alone.
    epoch = lamina.Variable(np.int32(0), dtype="int32", trainable=False)
    missing = Checkpoint(model=other, step=step, epoch=epoch).restore(path)
    assert missing.unmatched_variables == ["epoch"]
    with pytest.raises(AssertionError, match="epoch"):
        missing.assert_existing_objects_matched()


def test_variables_restore_by_name(tmp_path):
    step = lamina.Variable(np.int32(41), dtype="int32", trainable=False)
    scale = lamina.Variable(np.array([1.5, -2.0], "float32"))
    path = Checkpoint(step=step, scale=scale).write(tmp_path / "v.ckpt.h5")
    new_step = lamina.Variable(np.int32(0), dtype="int32", trainable=False)
    new_scale = lamina.Variable(np.zeros(2, "float32"))
    # Keyword order differs from the save: names, not positions, decide.
    Checkpoint(scale=new_scale, step=new_step).restore(path).assert_consumed()
    assert int(_np(new_step.value)) == 41
    np.testing.assert_array_equal(_np(new_scale.value), [1.5, -2.0])


def _compiled(weights=None):
    model = lamina.Sequential([lamina.Input((4,)), Dense(6, activation="tanh"), Dense(2)])
    if weights is not None:
        model.set_weights(weights)
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.05), loss="mse")
    return model


@pytest.mark.requires(Capability.TRAINING)
def test_optimizer_restored_with_its_model(tmp_path):
    x, y = _x(16, 4, 1), _x(16, 2, 2)
    fit = {"batch_size": 8, "verbose": 0, "shuffle": False}
    straight = _compiled()
    start = straight.get_weights()
    straight.fit(x, y, epochs=3, **fit)

    first = _compiled(start)
    first.fit(x, y, epochs=2, **fit)
    path = Checkpoint(model=first, optimizer=first.optimizer).write(tmp_path / "t.ckpt.h5")

    resumed = _compiled()  # fresh weights, optimizer not built yet
    assert not resumed.optimizer.built
    status = Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(path)
    assert "optimizer" in status.matched
    assert resumed.optimizer.built
    assert int(_np(resumed.optimizer.iterations)) == 4
    status.assert_consumed()
    resumed.fit(x, y, epochs=1, **fit)
    for got, want in zip(resumed.get_weights(), straight.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.requires(Capability.TRAINING)
def test_optimizer_state_waits_for_an_unbuilt_model(tmp_path):
    x, y = _x(8, 4, 3), _x(8, 2, 4)
    model = _compiled()
    model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    path = Checkpoint(model=model, optimizer=model.optimizer).write(tmp_path / "o.ckpt.h5")
    saved = [_np(v) for v in model.optimizer.variables]

    fresh = lamina.Sequential([Dense(6, activation="tanh"), Dense(2)])  # no Input: unbuilt
    fresh.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.05), loss="mse")
    status = Checkpoint(model=fresh, optimizer=fresh.optimizer).restore(path)
    assert "optimizer" in status.pending
    fresh.fit(x, y, epochs=1, batch_size=4, verbose=0)  # builds model, then optimizer
    assert "optimizer" in status.matched and status.pending == []
    # One more epoch ran after the restore: the step counter went on from the saved one.
    assert int(_np(fresh.optimizer.iterations)) == int(saved[0]) + 2


def test_unbuilt_optimizer_without_its_model_is_a_clear_error(tmp_path):
    opt = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    variables = [lamina.Variable(np.ones(3, "float32"))]
    opt.build(variables)
    path = Checkpoint(optimizer=opt).write(tmp_path / "o.ckpt.h5")
    lonely = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    with pytest.raises(LaminaFileError, match="not built"):
        Checkpoint(optimizer=lonely).restore(path)
    built = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    built.build([lamina.Variable(np.zeros(3, "float32"))])
    Checkpoint(optimizer=built).restore(path).assert_consumed()


def test_checkpoint_argument_errors(tmp_path):
    with pytest.raises(TypeError, match=r"`model`.*model=3"):
        Checkpoint(model=3)
    with pytest.raises(ValueError, match="reserved"):
        Checkpoint(**{"a/b": lamina.Variable(np.zeros(1, "float32"))})
    with pytest.raises(FileNotFoundError):
        Checkpoint(model=TwoTower()).restore(tmp_path / "nothing.ckpt.h5")


def test_save_numbers_continue_after_restore(tmp_path):
    model = TwoTower()
    model(_x())
    ckpt = Checkpoint(model=model)
    first = ckpt.save(tmp_path / "run")
    second = ckpt.save(tmp_path / "run")
    assert (os.path.basename(first), os.path.basename(second)) == (
        "run-1.ckpt.h5",
        "run-2.ckpt.h5",
    )
    again = Checkpoint(model=model)
    again.restore(second)
    assert again.save_counter == 2
    assert os.path.basename(again.save(tmp_path / "run")) == "run-3.ckpt.h5"


def test_manager_keeps_newest_and_tracks_latest(tmp_path):
    x = _x()
    model = TwoTower()
    model(x)
    step = lamina.Variable(np.int32(0), dtype="int32", trainable=False)
    manager = CheckpointManager(Checkpoint(model=model, step=step), tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = []
    for i in range(1, 5):
        step.assign(np.int32(i * 10))
        paths.append(manager.save())
    assert [os.path.basename(p) for p in paths] == [f"ckpt-{i}.ckpt.h5" for i in range(1, 5)]
    assert manager.checkpoints == paths[-2:]
    assert manager.latest_checkpoint == paths[-1]
    on_disk = sorted(p for p in os.listdir(tmp_path) if p.endswith(".ckpt.h5"))
    assert on_disk == ["ckpt-3.ckpt.h5", "ckpt-4.ckpt.h5"]
    with open(tmp_path / "checkpoint.json", encoding="utf-8") as f:
        state = json.load(f)
    assert state == {"checkpoints": ["ckpt-3.ckpt.h5", "ckpt-4.ckpt.h5"]}
    explicit = manager.save(checkpoint_number=100)
    assert explicit.endswith("ckpt-100.ckpt.h5") and manager.latest_checkpoint == explicit


def test_manager_restore_or_initialize(tmp_path):
    x = _x()
    model = TwoTower()
    expected = _np(model(x))
    step = lamina.Variable(np.int32(5), dtype="int32", trainable=False)
    empty = CheckpointManager(Checkpoint(model=model, step=step), tmp_path / "run")
    assert empty.restore_or_initialize() is None  # nothing saved: objects untouched
    assert int(_np(step.value)) == 5
    empty.save()

    # A new process: new objects, a new manager on the same folder reads its state file.
    fresh = TwoTower(reverse=True)
    new_step = lamina.Variable(np.int32(0), dtype="int32", trainable=False)
    ckpt = Checkpoint(model=fresh, step=new_step)
    manager = CheckpointManager(ckpt, tmp_path / "run", max_to_keep=3)
    assert manager.latest_checkpoint == str(tmp_path / "run" / "ckpt-1.ckpt.h5")
    status = manager.restore_or_initialize()
    assert isinstance(status, RestoreStatus)
    assert int(_np(new_step.value)) == 5
    np.testing.assert_allclose(_np(fresh(x)), expected, rtol=1e-6, atol=1e-6)
    status.assert_consumed()
    assert os.path.basename(manager.save()) == "ckpt-2.ckpt.h5"


def test_manager_max_to_keep_none_keeps_all_and_bad_values_refused(tmp_path):
    model = TwoTower()
    model(_x())
    manager = CheckpointManager(Checkpoint(model=model), tmp_path, max_to_keep=None)
    for _ in range(4):
        manager.save()
    assert len(manager.checkpoints) == 4
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match=rf"max_to_keep={bad!r}"):
            CheckpointManager(Checkpoint(model=model), tmp_path, max_to_keep=bad)
    with pytest.raises(TypeError, match="checkpoint="):
        CheckpointManager(model, tmp_path)


def test_manager_state_file_corrupt_or_hostile(tmp_path):
    model = TwoTower()
    model(_x())
    (tmp_path / "checkpoint.json").write_text("{not json")
    with pytest.raises(LaminaFileError, match=r"checkpoint\.json"):
        CheckpointManager(Checkpoint(model=model), tmp_path)
    # Names that leave the folder are ignored, never followed or deleted.
    (tmp_path / "checkpoint.json").write_text(
        json.dumps({"checkpoints": ["../outside.ckpt.h5", "/etc/passwd", "ckpt-1.ckpt.h5"]})
    )
    manager = CheckpointManager(Checkpoint(model=model), tmp_path, max_to_keep=1)
    assert manager.checkpoints == [str(tmp_path / "ckpt-1.ckpt.h5")]
