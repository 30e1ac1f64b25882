"""Atomic writes (issue 12, item 11): temporaries cleaned up, modes and symlinks kept."""

from __future__ import annotations

import os
import pathlib
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import atomic

posix_only = pytest.mark.skipif(os.name != "posix", reason="modes, links and pids as on POSIX")

# Runs atomic.py alone (standard library only), so a child starts in a fraction of a second.
_WRITER = textwrap.dedent(
    """
    import importlib.util, os, sys, time
    spec = importlib.util.spec_from_file_location("atomic", sys.argv[1])
    atomic = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(atomic)
    with atomic.atomic_path(sys.argv[2]) as tmp:
        with open(tmp, "wb") as f:
            f.write(b"partial")
        print(os.path.basename(tmp), flush=True)
        if sys.argv[3] == "die":
            os._exit(9)  # what kill -9 leaves: no cleanup runs
        time.sleep(60)
    """
)


def _writer(target, mode):
    return subprocess.Popen(
        [sys.executable, "-I", "-c", _WRITER, atomic.__file__, str(target), mode],
        stdout=subprocess.PIPE,
        text=True,
    )


def _temporaries(folder):
    return sorted(p.name for p in pathlib.Path(folder).iterdir() if p.name.endswith(".tmp"))


def _model():
    return lamina.Sequential([lamina.Input((4,)), Dense(3)])


@posix_only
def test_temporary_of_a_killed_save_is_removed_by_the_next_save(tmp_path):
    target = tmp_path / "w.weights.h5"
    with _writer(target, "die") as child:
        left = child.stdout.read().strip()
    assert _temporaries(tmp_path) == [left]
    assert left.startswith(".lamina-") and f"-{child.pid}-" in left
    _model().save_weights(target)
    assert _temporaries(tmp_path) == []
    assert target.exists()


@posix_only
def test_temporary_being_written_by_a_live_process_is_kept(tmp_path):
    target = tmp_path / "w.weights.h5"
    other = tmp_path / "unrelated.lamina-notes.tmp"
    other.write_text("not ours")
    with _writer(target, "sleep") as child:
        try:
            live = child.stdout.readline().strip()
            _model().save_weights(tmp_path / "other.weights.h5")
            assert _temporaries(tmp_path) == sorted([live, other.name])
        finally:
            child.kill()
    _model().save_weights(tmp_path / "other.weights.h5")
    assert _temporaries(tmp_path) == [other.name]


def test_failed_write_leaves_no_temporary_and_the_old_file(tmp_path):
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic.atomic_path(str(target)) as tmp:
        pathlib.Path(tmp).write_bytes(b"new")
        raise RuntimeError("mid-write")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600, 0o664])
def test_replaced_file_keeps_its_mode(tmp_path, mode):
    target = tmp_path / "w.weights.h5"
    model = _model()
    model.save_weights(target)
    os.chmod(target, mode)
    model.save_weights(target)
    assert stat.S_IMODE(os.stat(target).st_mode) == mode
    model.save(tmp_path / "m.lamina")
    os.chmod(tmp_path / "m.lamina", mode)
    model.save(tmp_path / "m.lamina")
    assert stat.S_IMODE(os.stat(tmp_path / "m.lamina").st_mode) == mode


@posix_only
def test_new_file_gets_the_umask_mode(tmp_path):
    previous = os.umask(0o027)
    try:
        _model().save_weights(tmp_path / "w.weights.h5")
        _model().save(tmp_path / "m.lamina")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(tmp_path / "w.weights.h5").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(tmp_path / "m.lamina").st_mode) == 0o640


@posix_only
def test_saving_through_a_symlink_writes_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "w.weights.h5"
    link = tmp_path / "link.weights.h5"
    a, b = _model(), _model()
    a.save_weights(real)
    link.symlink_to(real)
    b.save_weights(link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    a.load_weights(real)
    np.testing.assert_array_equal(
        lamina.ops.convert_to_numpy(a.layers[0].kernel),
        lamina.ops.convert_to_numpy(b.layers[0].kernel),
    )
    assert _temporaries(tmp_path) == [] and _temporaries(tmp_path / "real") == []
