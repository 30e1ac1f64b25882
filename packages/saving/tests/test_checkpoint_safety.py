"""Checkpoints against forged files: values that do not fit, wrong counts and shapes,
and manager state of the wrong types. Each file starts as a valid save edited here."""

from __future__ import annotations

import json
import pathlib

import h5py
import numpy as np
import pytest

import lamina
import lamina.optimizers
from lamina_saving import Checkpoint, CheckpointManager, LaminaFileError


def _np(x):
    return lamina.ops.convert_to_numpy(x)


def _counter(value=5):
    # int32: JAX keeps 64-bit integers only with x64 enabled.
    return lamina.Variable(np.array(value, "int32"), dtype="int32", trainable=False)


def _forge(path: pathlib.Path, name: str, data) -> None:
    """Put `data` at dataset `name`, as a file without checksums would hold it."""
    with h5py.File(path, "r+") as f:
        saved_name = f[name].attrs["name"]
        del f[name]
        f.create_dataset(name, data=data).attrs["name"] = saved_name
        if "checksums" in f.attrs:
            del f.attrs["checksums"]
        for dset in _datasets(f):
            dset.attrs.pop("crc32", None)


def _datasets(f):
    found = []
    f.visititems(lambda n, o: found.append(o) if isinstance(o, h5py.Dataset) else None)
    return found


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e30, -1e30, 2.5, 2.0**31])
def test_values_that_are_not_whole_in_range_numbers_never_reach_an_int_variable(tmp_path, bad):
    step = _counter()
    path = tmp_path / "c.ckpt.h5"
    Checkpoint(step=step).write(path)
    _forge(path, "step/vars/0", np.array(bad, "float64"))
    with pytest.raises(LaminaFileError, match=r"c\.ckpt\.h5.*`step`.*int32"):
        Checkpoint(step=step).restore(path)
    assert int(_np(step.value)) == 5  # untouched, not INT_MIN


def test_whole_floats_in_range_restore_into_an_int_variable(tmp_path):
    step = _counter()
    path = tmp_path / "c.ckpt.h5"
    Checkpoint(step=step).write(path)
    _forge(path, "step/vars/0", np.array(41.0))
    Checkpoint(step=step).restore(path).assert_consumed()
    assert int(_np(step.value)) == 41


def test_an_optimizer_step_counter_refuses_nan(tmp_path):
    variables = [lamina.Variable(np.ones(3, "float32"))]
    opt = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    opt.build(variables)
    path = tmp_path / "o.ckpt.h5"
    Checkpoint(optimizer=opt).write(path)
    with h5py.File(path, "r") as f:
        names = {d.attrs["name"]: d.name for d in _datasets(f)}
    _forge(path, names["iteration"], np.array(np.nan))
    fresh = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    fresh.build([lamina.Variable(np.zeros(3, "float32"))])
    with pytest.raises(LaminaFileError, match=r"iteration.*NaN"):
        Checkpoint(optimizer=fresh).restore(path)
    assert int(_np(fresh.iterations)) == 0


def test_a_variable_entry_with_the_wrong_count_or_shape_is_a_file_error(tmp_path):
    step = _counter()
    path = tmp_path / "c.ckpt.h5"
    Checkpoint(step=step).write(path)
    with h5py.File(path, "r+") as f:
        f.create_dataset("step/vars/1", data=np.array(3, "int32")).attrs["name"] = "other"
    with pytest.raises(LaminaFileError, match=r"'step' holds 2 values"):
        Checkpoint(step=step).restore(path)
    Checkpoint(step=step).write(path)
    _forge(path, "step/vars/0", np.arange(3, dtype="int32"))
    with pytest.raises(LaminaFileError, match=r"`step`.*expected shape \(\), got \(3,\)"):
        Checkpoint(step=step).restore(path)


def _manager(tmp_path):
    return CheckpointManager(Checkpoint(step=_counter()), tmp_path)


@pytest.mark.parametrize(
    "state",
    [
        "[1, 2]",
        '"checkpoints"',
        '{"checkpoints": 5}',
        '{"checkpoints": "ckpt-1.ckpt.h5"}',
        '{"checkpoints": [1, null]}',
        '{"checkpoints": {"a": 1}}',
        "{}",
        "[" * 100_000 + "]" * 100_000,
        "{not json",
        b"\xff\xfe{}",
    ],
)
def test_forged_manager_state_is_a_file_error(tmp_path, state):
    target = tmp_path / CheckpointManager.STATE
    target.write_bytes(state if isinstance(state, bytes) else state.encode())
    with pytest.raises(LaminaFileError, match=r"checkpoint\.json"):
        _manager(tmp_path)


def test_manager_state_keeps_only_checkpoint_files_in_its_folder(tmp_path):
    names = ["ckpt-1.ckpt.h5", "../up.ckpt.h5", "/etc/passwd", "notes.txt", "", "..",
             "a\\b.ckpt.h5", "nul\0.ckpt.h5", "ckpt-2.ckpt.h5"]
    (tmp_path / CheckpointManager.STATE).write_text(json.dumps({"checkpoints": names}))
    manager = _manager(tmp_path)
    assert [pathlib.Path(p).name for p in manager.checkpoints] == [
        "ckpt-1.ckpt.h5", "ckpt-2.ckpt.h5"
    ]


def test_a_too_large_manager_state_is_refused_unread(tmp_path):
    state = {"checkpoints": ["ckpt-1.ckpt.h5"], "padding": "x" * (2 * 2**20)}
    (tmp_path / CheckpointManager.STATE).write_text(json.dumps(state))
    with pytest.raises(LaminaFileError, match="bytes"):
        _manager(tmp_path)
