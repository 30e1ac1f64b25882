"""Archives written in place (`ZipWriter`): readable by any zip reader, damage still found."""

from __future__ import annotations

import zipfile
import zlib

import h5py
import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import LaminaFileError, zip_writer
from lamina_saving.zip_writer import ZipWriter


def _sequential():
    return lamina.Sequential([lamina.layers.Input((6,)), Dense(5), Dense(3)])


def test_members_written_in_place_read_back_with_zipfile(tmp_path):
    path = tmp_path / "a.zip"
    values = np.arange(12, dtype="float32").reshape(3, 4)
    with ZipWriter(str(path)) as z:
        z.write("first.json", b'{"a": 1}')
        with z.member("data.h5") as member, h5py.File(member, "w") as f:
            f.create_dataset("x", data=values)  # HDF5 seeks back to its start to finish
        z.write("ünïcode/name.txt", b"text")
        z.write("empty", b"")
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every member's CRC matches its bytes
        assert [i.filename for i in z.infolist()] == [
            "first.json", "data.h5", "ünïcode/name.txt", "empty",
        ]  # fmt: skip
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        assert z.read("first.json") == b'{"a": 1}' and z.read("empty") == b""
        assert z.read("ünïcode/name.txt") == b"text"
        with z.open("data.h5") as member, h5py.File(member, "r") as f:
            np.testing.assert_array_equal(f["x"][()], values)


def test_zip64_end_records_are_written_when_the_directory_needs_them(tmp_path, monkeypatch):
    monkeypatch.setattr(zip_writer, "_COUNT_LIMIT", 2)  # as if the archive held 65,535
    path = tmp_path / "many.zip"
    with ZipWriter(str(path)) as z:
        for i in range(3):
            z.write(f"m{i}", bytes([i]) * (i + 1))
    data = path.read_bytes()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data  # zip64 end record, locator
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        assert [z.read(f"m{i}") for i in range(3)] == [b"\x00", b"\x01\x01", b"\x02\x02\x02"]


def test_an_error_while_writing_a_member_leaves_no_directory(tmp_path):
    path = tmp_path / "broken.zip"
    with pytest.raises(RuntimeError, match="mid-member"), ZipWriter(str(path)) as z:
        z.write("ok", b"fine")
        with z.member("half") as member:
            member.write(b"partial")
            raise RuntimeError("mid-member")
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(path)


@pytest.mark.parametrize("suffix", [".lamina", ".keras"])
def test_damaged_weights_member_is_refused_in_its_values_or_its_metadata(tmp_path, suffix):
    model = _sequential()
    path = tmp_path / f"m{suffix}"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("model.weights.h5")
        member = z.read("model.weights.h5")
    data = bytearray(path.read_bytes())
    start = data.index(member)
    kernel = model.layers[-1].kernel.numpy().tobytes()
    in_values = start + member.index(kernel) + 5
    in_metadata = start + member.index(b"lamina_saving_version")
    for at in (in_values, in_metadata):
        damaged = bytearray(data)
        damaged[at] ^= 0x40
        target = tmp_path / f"damaged{suffix}"
        target.write_bytes(bytes(damaged))
        with pytest.raises(LaminaFileError, match=r"damaged|CRC"):
            lamina.saving.load_model(target)
    assert zlib.crc32(member) == info.CRC  # the untouched archive is consistent
