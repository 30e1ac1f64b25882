"""Reading archives in place: the stored-member view, its CRC check, and the probe child."""

from __future__ import annotations

import pathlib
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import LaminaFileError
from lamina_saving import probe as probe_module
from lamina_saving.zip_member import open_stored_member

HANG_FILE = pathlib.Path(__file__).parent / "data" / "hdf5_attribute_loop.h5.bin"
WEIGHTS = "model.weights.h5"


def _archive(tmp_path: pathlib.Path) -> tuple[pathlib.Path, lamina.Model]:
    model = lamina.Sequential([lamina.Input((6,)), Dense(16), Dense(3)])
    path = tmp_path / "model.lamina"
    model.save(path)
    probe_module.forget_written()  # walk it like a file from elsewhere
    return path, model


def test_stored_member_reads_like_zipfile_at_any_position(tmp_path):
    path, _ = _archive(tmp_path)
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(WEIGHTS)
        expected = z.read(WEIGHTS)
    with open_stored_member(str(path), info) as member:
        assert member.read() == expected
        member.seek(100)
        assert member.read(50) == expected[100:150]
        member.seek(-10, 2)
        assert member.read(100) == expected[-10:]
        assert member.read(5) == b""
        member.seek(7)
        member.seek(3, 1)
        assert member.tell() == 10
        with pytest.raises(ValueError, match="Negative seek"):
            member.seek(-1)


def test_a_flipped_byte_in_the_weights_is_refused(tmp_path):
    path, _ = _archive(tmp_path)
    with open_stored_member(str(path), zipfile.ZipFile(path).getinfo(WEIGHTS)) as member:
        start, size = member.start, member.size
    data = bytearray(path.read_bytes())
    data[start + size - 20] ^= 0xFF  # in the last dataset's values: HDF5 would not notice
    path.write_bytes(bytes(data))
    with pytest.raises(LaminaFileError, match="CRC"):
        lamina.saving.load_model(path)


def test_loaded_archive_predicts_like_the_original(tmp_path):
    path, model = _archive(tmp_path)
    x = np.random.default_rng(0).normal(size=(4, 6)).astype("float32")
    np.testing.assert_allclose(
        lamina.ops.convert_to_numpy(lamina.saving.load_model(path)(x)),
        lamina.ops.convert_to_numpy(model(x)),
        rtol=1e-6,
    )


def test_one_child_serves_every_probe(tmp_path):
    path, _ = _archive(tmp_path)
    lamina.saving.load_model(path)
    first = probe_module._WALKER._process
    lamina.saving.load_model(path)
    assert first is not None and probe_module._WALKER._process is first


def test_a_hung_child_is_stopped_and_replaced(tmp_path, monkeypatch):
    path, _ = _archive(tmp_path)
    monkeypatch.setattr(probe_module, "TIMEOUT_S", 2.0)
    lamina.saving.load_model(path)
    before = probe_module._WALKER._process
    with pytest.raises(LaminaFileError, match="did not finish in 2 s"):
        probe_module.probe(str(HANG_FILE))
    assert before is not None and before.poll() is not None  # killed
    lamina.saving.load_model(path)  # a fresh child walks the next file
    assert probe_module._WALKER._process not in (None, before)


def test_a_child_that_dies_is_reported_as_a_crash(tmp_path, monkeypatch):
    path, _ = _archive(tmp_path)
    probe_module._WALKER.stop()
    monkeypatch.setattr(probe_module, "_WALK", "import sys; sys.stdin.readline(); sys.exit(3)")
    with pytest.raises(LaminaFileError, match=r"crashed \(exit code 3\)"):
        lamina.saving.load_model(path)
    monkeypatch.undo()
    lamina.saving.load_model(path)


def test_an_error_in_the_walk_is_a_failure_and_the_child_serves_on(tmp_path):
    path, _ = _archive(tmp_path)
    lamina.saving.load_model(path)
    child = probe_module._WALKER._process
    garbage = tmp_path / "garbage.weights.h5"
    garbage.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(200))  # a signature, then nothing
    with pytest.raises(LaminaFileError, match=r"garbage\.weights\.h5.*metadata failed"):
        probe_module.probe(str(garbage))
    assert probe_module._WALKER._process is child  # an answer, not a crash: same child
    lamina.saving.load_model(path)


def test_the_walk_is_bounded_in_objects_attributes_and_depth(tmp_path, monkeypatch):
    wide = tmp_path / "wide.h5"
    with h5py.File(wide, "w") as f:
        for i in range(30):
            f.create_group(f"g{i}")
    deep = tmp_path / "deep.h5"
    with h5py.File(deep, "w") as f:
        f.create_group("/".join(["g"] * 30))
    noted = tmp_path / "noted.h5"
    with h5py.File(noted, "w") as f:
        for i in range(30):
            f.attrs[f"a{i}"] = i
    probe_module._WALKER.stop()  # the limits go to the next child on its command line
    monkeypatch.setattr(probe_module, "MAX_OBJECTS", 20)
    monkeypatch.setattr(probe_module, "MAX_DEPTH", 20)
    try:
        with pytest.raises(LaminaFileError, match="more than 20 groups, datasets"):
            probe_module.probe(str(wide))
        with pytest.raises(LaminaFileError, match="deeper than 20"):
            probe_module.probe(str(deep))
        with pytest.raises(LaminaFileError, match="more than 20 attributes"):
            probe_module.probe(str(noted))
    finally:
        probe_module._WALKER.stop()


_LOAD_FOREVER = """
import sys, lamina
from lamina.layers.core import Dense
model = lamina.Sequential([lamina.Input((4,)), Dense(3), Dense(2)])
print("loading", flush=True)
model.load_weights(sys.argv[1])
"""


@pytest.mark.skipif(not pathlib.Path("/proc/self/task").exists(), reason="reads /proc")
def test_a_hung_child_dies_with_the_process_that_started_it(tmp_path):
    # A process killed while its probe hangs in HDF5's C code left the child spinning
    # forever (it never reads its closed stdin): the kernel now ends it with its parent.
    import os
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "loop.weights.h5"
    path.write_bytes(HANG_FILE.read_bytes())
    env = {**os.environ, "LAMINA_SAVING_PROBE_TIMEOUT": "600"}
    loader = subprocess.Popen(
        [sys.executable, "-c", _LOAD_FOREVER, str(path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert loader.stdout is not None and loader.stdout.readline().strip() == "loading"
        children: list[int] = []
        for _ in range(600):  # the probe child starts once the load reaches the file
            tasks = pathlib.Path(f"/proc/{loader.pid}/task")
            children = [
                int(pid)
                for task in tasks.iterdir()
                for pid in (task / "children").read_text().split()
            ]
            if children:
                break
            time.sleep(0.1)
        assert children, "the load started no probe child"
        time.sleep(1.0)  # let the child reach the walk
    finally:
        loader.send_signal(signal.SIGKILL)
        loader.wait()
        loader.stdout.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(
        pathlib.Path(f"/proc/{pid}").exists()
        and "Z" not in pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2]
        for pid in children
    ):
        time.sleep(0.1)
    alive = [
        pid
        for pid in children
        if pathlib.Path(f"/proc/{pid}").exists()
        and "Z" not in pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2]
    ]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the probe child outlived the process that started it"


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The requests the probe sends to its child from now on (walked as usual)."""
    sent: list[object] = []
    walk = probe_module._WALKER.walk

    def counted(request: list[object], timeout: float) -> str | None:
        sent.append(request)
        return walk(request, timeout)

    monkeypatch.setattr(probe_module._WALKER, "walk", counted)
    return sent


def test_a_file_this_process_saved_is_not_walked_again_until_it_changes(tmp_path, monkeypatch):
    model = lamina.Sequential([lamina.Input((6,)), Dense(4)])
    weights, archive = tmp_path / "m.weights.h5", tmp_path / "m.lamina"
    model.save_weights(weights)
    model.save(archive)
    sent = _walks(monkeypatch)
    model.load_weights(weights)
    lamina.saving.load_model(archive)
    assert sent == []
    weights.write_bytes(weights.read_bytes())  # the same bytes, written by someone else
    model.load_weights(weights)
    assert len(sent) == 1
    model.load_weights(weights)  # still not one of this process' own files
    assert len(sent) == 2


def test_a_saved_file_changed_in_place_is_walked_and_refused(tmp_path, monkeypatch):
    model = lamina.Sequential([lamina.Input((6,)), Dense(4)])
    weights = tmp_path / "m.weights.h5"
    model.save_weights(weights)
    before = weights.stat()
    data = bytearray(weights.read_bytes())
    data[:8] = bytes(8)  # the HDF5 signature gone, the size kept
    weights.write_bytes(bytes(data))
    sent = _walks(monkeypatch)
    with pytest.raises(LaminaFileError, match=r"m\.weights\.h5"):
        model.load_weights(weights)
    assert len(sent) == 1 and weights.stat().st_size == before.st_size


def test_a_saved_file_given_back_its_time_is_still_walked(tmp_path, monkeypatch):
    import os
    import time

    model = lamina.Sequential([lamina.Input((6,)), Dense(4)])
    weights = tmp_path / "m.weights.h5"
    model.save_weights(weights)
    stamp = weights.stat().st_mtime_ns
    time.sleep(0.05)  # past the clock tick of the save: the change time moves on
    weights.write_bytes(weights.read_bytes())
    os.utime(weights, ns=(stamp, stamp))  # the modification time put back: the change time moved
    sent = _walks(monkeypatch)
    model.load_weights(weights)
    assert len(sent) == 1
