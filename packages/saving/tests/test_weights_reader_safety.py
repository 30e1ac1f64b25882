"""The weights reader against damaged and forged files, each made from bytes here.

Every file starts as a valid save; the test then edits it with h5py or flips bytes found
by searching for a marker, so nothing binary is stored with the tests.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import Checkpoint, LaminaFileError
from lamina_saving import graph as graph_module
from lamina_saving import probe as probe_module
from lamina_saving import restore as restore_module
from lamina_saving.h5_store import WeightsReader

MARK = b"lamina-test-marker-0123"


def _x():
    return np.random.default_rng(0).normal(size=(5, 4)).astype("float32")


def _model(built=True):
    layers = [Dense(3, name="hidden"), Dense(2, name="out")]
    return lamina.Sequential(([lamina.Input((4,))] if built else []) + layers)


def _weights(model):
    return [lamina.ops.convert_to_numpy(v) for v in model.weights]


def _lamina_layout(tmp_path: pathlib.Path, name="l.weights.h5"):
    """A weights file in Lamina's own layout (``model/<path>/vars/<i>``), and its model."""
    model = _model()
    path = tmp_path / name
    Checkpoint(model=model).write(path)  # a Checkpoint's "model" section is that layout
    return path, model


def _first_dataset(f):
    found = []
    f.visititems(lambda n, o: found.append(n) if isinstance(o, h5py.Dataset) else None)
    return found[0]


def _break_attribute(path: pathlib.Path, where: str) -> None:
    """Give object `where` an attribute whose value HDF5 can list but h5py cannot read.

    The attribute is a fixed-length string stored inline; in its message the datatype
    (8 bytes) and the scalar dataspace (8 bytes) come right before the value, and the
    datatype's second byte holds the character set: 15 is none that HDF5 defines.
    """
    with h5py.File(path, "r+") as f:
        f[where].attrs["aaa_note"] = np.bytes_(MARK)
    data = bytearray(path.read_bytes())
    at = data.index(MARK)
    assert data[at - 16] & 0x0F == 3  # the datatype message of a string: the layout held
    data[at - 15] |= 0xF0
    path.write_bytes(bytes(data))


def test_the_probe_reports_an_attribute_it_cannot_read(tmp_path):
    path = tmp_path / "w.weights.h5"
    _model().save_weights(path)
    with h5py.File(path, "r") as f:
        first = _first_dataset(f)
    _break_attribute(path, first)
    with pytest.raises(LaminaFileError, match=r"w\.weights\.h5.*HDF5 metadata failed"):
        probe_module.probe(str(path))
    with pytest.raises(LaminaFileError, match=r"w\.weights\.h5"):
        _model().load_weights(path)


def test_load_model_refuses_weights_with_an_unreadable_attribute(tmp_path):
    archive = tmp_path / "m.lamina"
    _model().save(archive)
    with zipfile.ZipFile(archive) as z:
        members = {info.filename: z.read(info) for info in z.infolist()}
    inner = tmp_path / "inner.h5"
    inner.write_bytes(members["model.weights.h5"])
    with h5py.File(inner, "r") as f:
        first = _first_dataset(f)
    _break_attribute(inner, first)
    members["model.weights.h5"] = inner.read_bytes()
    forged = tmp_path / "forged.lamina"
    with zipfile.ZipFile(forged, "w", zipfile.ZIP_STORED) as z:  # fresh, correct CRCs
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(LaminaFileError, match=r"forged\.lamina.*HDF5 metadata failed"):
        lamina.saving.load_model(forged)


def test_an_unreadable_attribute_stops_the_load_before_hdf5_hangs_in_process(tmp_path):
    # The root's first attribute fails to read, and the global heap that holds every
    # variable-length string is damaged so that reading any of them loops forever in C.
    # A probe that gave up at the first failure and called the file walked let the
    # in-process reader hang; run the load in a child so a hang or crash fails the test.
    path = tmp_path / "w.weights.h5"
    _model().save_weights(path)
    _break_attribute(path, "/")
    data = bytearray(path.read_bytes())
    heap = data.index(b"GCOL")
    data[heap + 16 : heap + 32] = bytes(16)  # the first heap object: index 0, size 0
    path.write_bytes(bytes(data))
    script = textwrap.dedent(
        f"""
        import lamina
        from lamina.layers.core import Dense
        from lamina_saving import LaminaFileError
        model = lamina.Sequential([lamina.Input((4,)), Dense(3), Dense(2)])
        try:
            model.load_weights({str(path)!r})
        except LaminaFileError as e:
            print("refused:", e)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "HDF5 metadata failed" in done.stdout


def _add_fill_only_section(path: pathlib.Path, count: int) -> int:
    """`count` chunked datasets that declare half the file each and store nothing."""
    with h5py.File(path, "r+") as f:
        for i in range(count):
            f.create_dataset(
                f"extra/vars/{i}", shape=(1,), maxshape=(None,), chunks=(4096,),
                dtype="float32", fillvalue=1.0,
            )
    size = path.stat().st_size
    with h5py.File(path, "r+") as f:
        for i in range(count):
            f[f"extra/vars/{i}"].resize((size // 8,))
    return path.stat().st_size


def test_fill_only_datasets_in_a_section_the_model_lacks_cost_nothing(tmp_path):
    path, _ = _lamina_layout(tmp_path)
    size = _add_fill_only_section(path, 200)
    target = _model(built=False)
    tracemalloc.start()
    try:
        with pytest.raises(LaminaFileError, match="in total"):
            target.load_weights(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * size, f"loading held {peak} bytes for a {size}-byte file"


def test_the_reader_itself_refuses_data_the_file_does_not_store(tmp_path):
    # Without the probe in front, the in-process checks alone refuse both files.
    path, _ = _lamina_layout(tmp_path)
    _add_fill_only_section(path, 3)
    with pytest.raises(LaminaFileError, match="not in the file"):
        WeightsReader(str(path), str(path))
    # One stored dataset of a third of the file, linked from ten groups: each link fits,
    # together they declare three times the file.
    path, _ = _lamina_layout(tmp_path, "aliased.weights.h5")
    with h5py.File(path, "r+") as f:
        shared = f.create_dataset("extra/vars/0", data=np.zeros(path.stat().st_size // 12))
        for i in range(1, 10):
            f[f"extra{i}/vars/0"] = shared
    with pytest.raises(LaminaFileError, match="in total"):
        WeightsReader(str(path), str(path))


def test_a_variable_whose_values_were_never_written_is_refused(tmp_path):
    # Declared with the right shape, never written: HDF5 would hand back the fill value.
    model = _model()
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        name = _first_dataset(f)
        shape, dtype = f[name].shape, f[name].dtype
        del f[name]
        f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=7.0)
    before = _weights(model)
    with pytest.raises(LaminaFileError, match="not in the file"):
        model.load_weights(path)
    for got, want in zip(_weights(model), before, strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_cyclic_group_is_refused_without_recursion(tmp_path):
    path, model = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        loop = f.create_group("model/loop")
        loop["again"] = loop  # a hard link back to itself
    with pytest.raises(LaminaFileError, match="second path"):
        model.load_weights(path)


def test_groups_nested_past_the_limit_are_refused_without_recursion(tmp_path):
    path, model = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        f.create_group("model/" + "/".join(["g"] * 1200))
    with pytest.raises(LaminaFileError, match="deeper than"):
        model.load_weights(path)


def test_a_flipped_bit_in_a_variable_is_an_error_naming_it(tmp_path):
    path, model = _lamina_layout(tmp_path)
    with h5py.File(path, "r") as f:
        dset = f["model/sequence/1/vars/0"]
        assert dset.attrs["name"] == "kernel"
        offset = dset.id.get_offset() + dset.id.get_storage_size() // 2
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x04
    path.write_bytes(bytes(data))
    before = _weights(model)
    with pytest.raises(LaminaFileError, match=r"model/sequence/1/kernel.*checksum"):
        model.load_weights(path)
    with pytest.raises(LaminaFileError, match=r"kernel.*checksum"):
        Checkpoint(model=_model()).restore(path)
    np.testing.assert_array_equal(_weights(model)[0], before[0])


def _strip_checksums(path: pathlib.Path) -> None:
    with h5py.File(path, "r+") as f:
        if "checksums" in f.attrs:
            del f.attrs["checksums"]
        for name in _datasets(f):
            if "crc32" in f[name].attrs:
                del f[name].attrs["crc32"]


def _datasets(f):
    found = []
    f.visititems(lambda n, o: found.append(n) if isinstance(o, h5py.Dataset) else None)
    return found


def test_files_without_checksums_still_load(tmp_path):
    path, model = _lamina_layout(tmp_path)
    with h5py.File(path, "r") as f:
        assert f.attrs["checksums"] == "crc32"
        assert all("crc32" in f[n].attrs for n in _datasets(f))
    _strip_checksums(path)  # as written before checksums, or by hand
    fresh = _model()
    fresh.load_weights(path)
    for got, want in zip(_weights(fresh), _weights(model), strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_checksum_missing_from_a_checksummed_file_is_an_error(tmp_path):
    path, _ = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        del f["model/sequence/2/vars/1"].attrs["crc32"]
    with pytest.raises(LaminaFileError, match=r"model/sequence/2/bias lacks its crc32"):
        _model().load_weights(path)


def test_the_checksum_covers_the_dtype(tmp_path):
    # The same bytes relabelled int32: a damaged type message, not new values.
    path, _ = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        name = "model/sequence/1/vars/0"
        values, attrs = f[name][()], dict(f[name].attrs)
        del f[name]
        f.create_dataset(name, data=values.view("int32"))
        f[name].attrs.update(attrs)
    with pytest.raises(LaminaFileError, match="checksum"):
        _model().load_weights(path)


def _replace(path: pathlib.Path, name: str, data) -> None:
    """Put `data` at dataset `name`, keeping its name attribute, without checksums."""
    with h5py.File(path, "r+") as f:
        saved_name = f[name].attrs["name"]
        del f[name]
        f.create_dataset(name, data=data).attrs["name"] = saved_name
    _strip_checksums(path)


def test_values_that_do_not_fit_the_variable_dtype_are_refused(tmp_path):
    path, model = _lamina_layout(tmp_path)
    kernel = _weights(model)[0]
    cases = [
        (kernel + 1j, "complex"),
        (np.full(kernel.shape, 1e300), "overflow"),
        (np.full(kernel.shape, 2**60 + 1, dtype="int64"), "too large"),  # rounds in float32
    ]
    for value, pattern in cases:
        _replace(path, "model/sequence/1/vars/0", value)
        for target in (_model(), _model(built=False)):
            with pytest.raises(LaminaFileError, match=rf"'hidden'.*kernel.*{pattern}"):
                target.load_weights(path)
                target(_x())  # the unbuilt one meets the value when it builds


def test_a_name_attribute_that_is_not_a_string_is_refused(tmp_path):
    path, _ = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        f["model/sequence/1/vars/0"].attrs["name"] = np.arange(3)
    with pytest.raises(LaminaFileError, match="`name` attribute"):
        _model(built=False).load_weights(path)


def test_entries_outside_the_model_are_reported_unread(tmp_path):
    path, _ = _lamina_layout(tmp_path)
    with h5py.File(path, "r+") as f:
        f.create_dataset("elsewhere/vars/0", data=np.zeros(3, "float32")).attrs["name"] = "x"
    _strip_checksums(path)
    for target in (_model(), _model(built=False)):
        with pytest.raises(LaminaFileError, match=r"outside 'model'.*elsewhere"):
            target.load_weights(path)
        with pytest.warns(UserWarning, match="elsewhere"):
            status = target.load_weights(path, skip_mismatch=True)
        assert "elsewhere" in status.skipped and "elsewhere" not in status.pending


class Many(lamina.Model):
    """A model of many small layers, held in a list."""

    def __init__(self, count, **kwargs):
        super().__init__(**kwargs)
        self.blocks = [Dense(1) for _ in range(count)]

    def call(self, x):
        out = self.blocks[0](x)
        for block in self.blocks[1:]:
            out = out + block(x)
        return out


def test_deferred_restore_does_not_walk_the_model_per_variable(tmp_path, monkeypatch):
    x = np.ones((2, 1), "float32")
    source = Many(300)
    source(x)
    path = tmp_path / "many.weights.h5"
    source.save_weights(path)
    target = Many(300)
    target.load_weights(path)
    walks = []
    real = graph_module.walk_layers

    def counting(root):
        if root is target:
            walks.append(1)
        return real(root)

    monkeypatch.setattr(graph_module, "walk_layers", counting)
    monkeypatch.setattr(restore_module, "walk_layers", counting)
    target(x)  # builds: 600 variables take their saved values as they are created
    assert len(walks) <= 10, f"{len(walks)} walks of the whole model for 600 variables"
    for got, want in zip(_weights(target), _weights(source), strict=True):
        np.testing.assert_array_equal(got, want)


def test_fit_value_casts_only_what_keeps_every_number():
    import ml_dtypes

    fit = restore_module.fit_value
    half = np.array([1.5, -2.0], ml_dtypes.bfloat16)  # Keras' bfloat16 files read as this
    np.testing.assert_array_equal(fit(half, "float32", "f", "w"), [1.5, -2.0])
    assert fit(np.array([3.0]), "int32", "f", "w").dtype == np.int32
    assert fit(np.array([-(2.0**63)]), "int64", "f", "w")[0] == -(2**63)
    refused = [
        (np.array([2.0**63]), "int64"),  # one past INT64_MAX, though float(INT64_MAX) equals it
        (np.array([np.nan], ml_dtypes.bfloat16), "int32"),
        (np.array([2]), "bool"),
        (np.array([-1]), "uint8"),
        (np.array([1e39]), "float32"),
    ]
    for value, dtype in refused:
        with pytest.raises(LaminaFileError, match=r"^f: w: "):
            fit(value, dtype, "f", "w")
