"""Hostile archive layouts (issue 12, items 4, 6 and 9): built byte by byte in each test.

Every tool that reads a zip must see the same members, so duplicates, local headers that
disagree with the central directory and overlapping members are refused; a deflated
member is inflated as a stream and stopped one byte past its declared size; a config's
sizes cannot allocate more than the weights file holds; whatever a forged config makes a
constructor raise comes out as `LaminaFileError` naming the file.
"""

from __future__ import annotations

import builtins
import json
import re
import struct
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import LaminaFileError

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.h5"


def _np(x):
    return lamina.ops.convert_to_numpy(x)


def _parts(tmp_path):
    """The members of a real saved archive, and the model it came from."""
    model = lamina.Sequential([lamina.Input((4,)), Dense(3, name="d")])
    path = tmp_path / "good.lamina"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        return model, {name: z.read(name) for name in (METADATA, CONFIG, WEIGHTS)}


def _deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


class RawZip:
    """A zip written field by field, so a test can make the two copies of a name (local
    header, central directory) disagree, or point two entries at overlapping bytes."""

    def __init__(self):
        self.body = b""
        self.central = []

    def record(self, name, data, method=zipfile.ZIP_STORED, *, local_name=None,
               local_size=None, size=None, crc=None):
        """Append a member's local header and data; returns its header offset."""
        payload = data if method == zipfile.ZIP_STORED else _deflate(data)
        size = len(data) if size is None else size
        crc = zlib.crc32(data) if crc is None else crc
        offset = len(self.body)
        self.body += _local(local_name or name, payload, method, crc,
                            size if local_size is None else local_size)
        self.central.append((name, method, crc, len(payload), size, offset))
        return offset

    def entry(self, name, method, crc, compressed, size, offset):
        """A central directory entry only (its local header is wherever `offset` says)."""
        self.central.append((name, method, crc, compressed, size, offset))

    def bytes(self):
        directory = b"".join(
            struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc,
                        compressed, size, len(name.encode()), 0, 0, 0, 0, 0, offset)
            + name.encode()
            for name, method, crc, compressed, size, offset in self.central
        )
        end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, len(self.central),
                          len(self.central), len(directory), len(self.body), 0)
        return self.body + directory + end


def _local(name, payload, method, crc, size, compressed=None):
    raw = name.encode()
    compressed = len(payload) if compressed is None else compressed
    return struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, compressed,
                       size, len(raw), 0) + raw + payload


def _write(tmp_path, raw, name="crafted.lamina"):
    path = tmp_path / name
    path.write_bytes(raw.bytes())
    return path


def test_raw_zip_writer_makes_archives_that_load(tmp_path):
    model, parts = _parts(tmp_path)
    raw = RawZip()
    for name, data in parts.items():
        raw.record(name, data, zipfile.ZIP_DEFLATED if name == CONFIG else zipfile.ZIP_STORED)
    loaded = lamina.saving.load_model(_write(tmp_path, raw))
    np.testing.assert_array_equal(_np(loaded.layers[0].kernel), _np(model.layers[0].kernel))


@pytest.mark.parametrize("twice", [CONFIG, WEIGHTS, "assets/vocab.txt"])
def test_duplicate_member_names_are_refused(tmp_path, twice):
    _, parts = _parts(tmp_path)
    evil = dict(parts)
    evil[CONFIG] = parts[CONFIG].replace(b'"units": 3', b'"units": 5')
    evil["assets/vocab.txt"] = b"b"
    raw = RawZip()
    for name, data in parts.items():
        raw.record(name, data)
    if twice.startswith("assets/"):
        raw.record(twice, b"a")
    raw.record(twice, evil[twice])  # `unzip` reads the first copy, zipfile the last
    with pytest.raises(LaminaFileError, match=re.escape(f"two members named '{twice}'")) as info:
        lamina.saving.load_model(_write(tmp_path, raw))
    assert "crafted.lamina" in str(info.value)


def test_local_header_name_differing_from_the_directory_is_refused(tmp_path):
    _, parts = _parts(tmp_path)
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    raw.record(CONFIG, parts[CONFIG])
    raw.record(WEIGHTS, parts[WEIGHTS], local_name="model.weights.H5")
    path = _write(tmp_path, raw)
    with pytest.raises(LaminaFileError, match=r"'model\.weights\.H5' in its local header"):
        lamina.saving.load_model(path)
    with pytest.raises(LaminaFileError, match="local header"):
        lamina.Sequential([lamina.Input((4,)), Dense(3, name="d")]).load_weights(path)


@pytest.mark.parametrize("field", ["size", "crc"])
def test_local_header_sizes_or_crc_differing_from_the_directory_are_refused(tmp_path, field):
    _, parts = _parts(tmp_path)
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    raw.record(CONFIG, parts[CONFIG])
    offset = raw.record(WEIGHTS, parts[WEIGHTS])
    body = bytearray(raw.body)
    at = offset + (14 if field == "crc" else 22)  # CRC, or the uncompressed size
    body[at : at + 4] = struct.pack("<I", 12345)
    raw.body = bytes(body)
    with pytest.raises(LaminaFileError, match="disagrees with the central directory"):
        lamina.saving.load_model(_write(tmp_path, raw))


def test_member_hidden_inside_another_members_data_is_refused(tmp_path):
    _, parts = _parts(tmp_path)
    evil = parts[CONFIG].replace(b'"units": 3', b'"units": 5')
    hidden = _local(CONFIG, evil, zipfile.ZIP_STORED, zlib.crc32(evil), len(evil))
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    pad = raw.record("assets/readme.txt", hidden)  # a scanner sees a text file here
    inner = pad + 30 + len("assets/readme.txt")
    raw.entry(CONFIG, zipfile.ZIP_STORED, zlib.crc32(evil), len(evil), len(evil), inner)
    raw.record(WEIGHTS, parts[WEIGHTS])
    with pytest.raises(LaminaFileError, match="overlap"):
        lamina.saving.load_model(_write(tmp_path, raw))


def test_member_data_running_into_the_central_directory_is_refused(tmp_path):
    _, parts = _parts(tmp_path)
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    raw.record(CONFIG, parts[CONFIG])
    offset = len(raw.body)
    size = len(parts[WEIGHTS]) + 40
    raw.body += _local(WEIGHTS, parts[WEIGHTS], 0, zlib.crc32(parts[WEIGHTS]), size, size)
    raw.entry(WEIGHTS, 0, zlib.crc32(parts[WEIGHTS]), size, size, offset)
    with pytest.raises(LaminaFileError, match="runs past the member area"):
        lamina.saving.load_model(_write(tmp_path, raw))


def _zeros_bomb(mib):
    """A raw deflate stream of `mib` MiB of zeros, about 1 KB per MiB, made instantly."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(2**20)) + c.flush(zlib.Z_FULL_FLUSH)  # byte-aligned, not final
    return block * mib + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def test_config_inflating_far_past_its_declared_size_stops_early(tmp_path):
    _, parts = _parts(tmp_path)
    bomb = _zeros_bomb(1024)  # 1 GiB of zeros in about 1 MB, declared as 1,000 bytes
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    offset = len(raw.body)
    raw.body += _local(CONFIG, bomb, zipfile.ZIP_DEFLATED, 0, 1000)
    raw.entry(CONFIG, zipfile.ZIP_DEFLATED, 0, len(bomb), 1000, offset)
    raw.record(WEIGHTS, parts[WEIGHTS])
    path = _write(tmp_path, raw)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(LaminaFileError, match="more than its declared 1000 bytes"):
            lamina.saving.load_model(path)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20, f"peak {peak / 2**20:.0f} MiB while refusing the bomb"
    assert seconds < 5, f"took {seconds:.1f} s to refuse the bomb"


def test_deflated_member_with_trailing_or_missing_bytes_is_refused(tmp_path):
    _, parts = _parts(tmp_path)
    for payload, size, pattern in [
        (_deflate(parts[CONFIG]) + b"junk", len(parts[CONFIG]), "does not fill the member"),
        (_deflate(parts[CONFIG]), len(parts[CONFIG]) + 7, "not its declared"),
    ]:
        raw = RawZip()
        raw.record(METADATA, parts[METADATA])
        offset = len(raw.body)
        crc = zlib.crc32(parts[CONFIG])
        raw.body += _local(CONFIG, payload, zipfile.ZIP_DEFLATED, crc, size)
        raw.entry(CONFIG, zipfile.ZIP_DEFLATED, crc, len(payload), size, offset)
        raw.record(WEIGHTS, parts[WEIGHTS])
        with pytest.raises(LaminaFileError, match=pattern):
            lamina.saving.load_model(_write(tmp_path, raw))


@pytest.mark.parametrize(
    "entry", ["assets/a\\..\\..\\x.txt", "assets/./x.txt", "assets//x.txt", "assets/C:x.txt",
              "assets/x\x00.txt", "assets/d/../../x.txt"]
)
def test_member_names_with_unsafe_components_are_refused(tmp_path, entry):
    _, parts = _parts(tmp_path)
    raw = RawZip()
    for name, data in parts.items():
        raw.record(name, data)
    raw.record(entry, b"x")
    with pytest.raises(LaminaFileError, match="outside the target folder"):
        lamina.saving.load_model(_write(tmp_path, raw))


def _with_config(tmp_path, parts, edit, name="forged.lamina"):
    config = json.loads(parts[CONFIG])
    edit(config)
    raw = RawZip()
    raw.record(METADATA, parts[METADATA])
    raw.record(CONFIG, json.dumps(config).encode())
    raw.record(WEIGHTS, parts[WEIGHTS])
    return _write(tmp_path, raw, name)


def _dense_config(config):
    return next(layer for layer in config["config"]["layers"] if layer["class_name"] == "Dense")


def test_config_sizes_beyond_the_weights_file_are_refused_before_allocating(tmp_path):
    _, parts = _parts(tmp_path)

    def huge(config):
        _dense_config(config)["config"]["units"] = 5_000_000  # 20 M values from 4 inputs

    with pytest.raises(LaminaFileError, match="refusing to allocate") as info:
        lamina.saving.load_model(_with_config(tmp_path, parts, huge))
    message = str(info.value)
    assert "forged.lamina" in message and "kernel" in message and "(4, 5000000)" in message


def test_allocation_check_runs_before_any_variable_is_allocated():
    from lamina.layers.layer import initializers_skipped

    seen = []

    def refuse(path, shape, dtype):
        seen.append((path, shape, dtype))
        raise LaminaFileError("f", f"{path} refused")

    layer = Dense(2**40)  # a terabyte kernel: allocating it first would fail differently
    with initializers_skipped(refuse), pytest.raises(LaminaFileError, match="kernel refused"):
        layer.build((None, 4))
    assert len(seen) == 1 and seen[0][0].endswith("kernel")
    assert seen[0][1:] == ((4, 2**40), "float32")
    Dense(3).build((None, 4))  # outside the block nothing is checked


@lamina.saving.register_serializable(package="ArchiveSafetyTests")
class Explodes(lamina.layers.Layer):
    """Raises what its config asks for, standing in for a constructor a file can break."""

    def __init__(self, error="MemoryError", **kwargs):
        super().__init__(**kwargs)
        self.error = error
        raise {"MemoryError": MemoryError, "KeyboardInterrupt": KeyboardInterrupt,
               "TypeError": TypeError, "RecursionError": RecursionError}[error]("boom")

    def get_config(self):
        return {**super().get_config(), "error": self.error}


@pytest.mark.parametrize("error", ["MemoryError", "TypeError", "RecursionError"])
def test_foreign_errors_while_building_name_the_file_or_the_entry(tmp_path, error):
    _, parts = _parts(tmp_path)

    def explode(config):
        config["config"]["layers"].append(
            {"module": None, "class_name": "ArchiveSafetyTests>Explodes",
             "config": {"error": error, "name": "boom"}, "registered_name":
             "ArchiveSafetyTests>Explodes"}
        )

    path = _with_config(tmp_path, parts, explode)
    with pytest.raises(ValueError, match=error) as info:
        lamina.saving.load_model(path)
    named = "forged.lamina" in str(info.value) or "'boom'" in str(info.value)
    assert named, str(info.value)
    cause = info.value.__cause__
    while cause is not None and not isinstance(cause, getattr(builtins, error)):
        cause = cause.__cause__
    assert cause is not None, "the original error is not chained"


@lamina.saving.register_serializable(package="ArchiveSafetyTests")
class BadAssets(lamina.layers.Layer):
    """Its `load_assets` fails the way a forged asset can make a parser fail."""

    def call(self, x):
        return x

    def save_assets(self, folder):
        with open(f"{folder}/table.txt", "w") as f:
            f.write("x")

    def load_assets(self, folder):
        return {}["missing key"]


def test_errors_escaping_asset_loading_become_library_errors(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), Dense(3), BadAssets()])
    path = tmp_path / "assets.lamina"
    model.save(path)
    with pytest.raises(LaminaFileError, match="does not build a model: KeyError") as info:
        lamina.saving.load_model(path)
    assert "assets.lamina" in str(info.value)
    assert isinstance(info.value.__cause__, KeyError)


def test_keyboard_interrupt_while_building_is_not_swallowed(tmp_path):
    _, parts = _parts(tmp_path)

    def explode(config):
        config["config"]["layers"].append(
            {"module": None, "class_name": "ArchiveSafetyTests>Explodes",
             "config": {"error": "KeyboardInterrupt", "name": "boom"},
             "registered_name": "ArchiveSafetyTests>Explodes"}
        )

    with pytest.raises(KeyboardInterrupt):
        lamina.saving.load_model(_with_config(tmp_path, parts, explode))


@pytest.mark.parametrize("drop", ["class_name", "config"])
def test_a_config_that_describes_no_model_is_refused(tmp_path, drop):
    # Found by the fuzzer: without `class_name` the config deserializes to a plain dict,
    # which the restore then walked as if it were a model.
    _, parts = _parts(tmp_path)
    path = _with_config(tmp_path, parts, lambda config: config.pop(drop))
    with pytest.raises(LaminaFileError, match="not a model"):
        lamina.saving.load_model(path)
