"""`h5_direct` reads and writes what h5py's high-level API does, on its own files and
on files h5py wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import h5py
import ml_dtypes
import numpy as np
import pytest

from lamina_saving import h5_direct

ATTRIBUTES: dict[str, Any] = {
    "text": "dense_1",
    "unicode": "größe ✓",
    "int": 3,
    "float": 0.5,
    "uint32": np.uint32(4_000_000_000),
    "uint32_array": np.array([1, 2, 3], dtype=np.uint32),
    "text_array": np.array(["a", "bc"], dtype=h5py.string_dtype()),
    "bytes": np.bytes_(b"fixed"),
    "empty": h5py.Empty("f4"),
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, h5py.Empty) or isinstance(b, h5py.Empty):
        return isinstance(a, h5py.Empty) and isinstance(b, h5py.Empty) and a.dtype == b.dtype
    return type(a) is type(b) and np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_read_attr_reads_what_h5py_reads(tmp_path: Path, name: str) -> None:
    path = tmp_path / "a.h5"
    with h5py.File(path, "w") as f:
        f.create_group("g").attrs[name] = ATTRIBUTES[name]
    with h5py.File(path, "r") as f:
        group = h5_direct.open_object(h5_direct.root(f), "g")
        assert _same(h5_direct.read_attr(group, name), f["g"].attrs[name])
        assert h5_direct.read_attr(group, "absent", "default") == "default"


def test_read_attr_of_an_array_type(tmp_path: Path) -> None:
    path = tmp_path / "a.h5"
    with h5py.File(path, "w") as f:
        f.attrs.create("pairs", np.arange(6, dtype="i4").reshape(3, 2), dtype=np.dtype("(2,)i4"))
    with h5py.File(path, "r") as f:
        value = h5_direct.read_attr(h5_direct.root(f), "pairs")
        assert _same(value, f.attrs["pairs"])
        assert value.shape == (3, 2)


@pytest.mark.parametrize("name", sorted(set(ATTRIBUTES) - {"empty", "text_array"}))
def test_write_attr_writes_what_h5py_writes(tmp_path: Path, name: str) -> None:
    ours, theirs = tmp_path / "ours.h5", tmp_path / "theirs.h5"
    with h5py.File(ours, "w") as f:
        h5_direct.write_attr(h5_direct.create_group(f.id, "g"), name, ATTRIBUTES[name])
    with h5py.File(theirs, "w") as f:
        f.create_group("g").attrs[name] = ATTRIBUTES[name]
    with h5py.File(ours, "r") as a, h5py.File(theirs, "r") as b:
        mine, reference = a["g"].attrs.get_id(name), b["g"].attrs.get_id(name)
        assert mine.get_type() == reference.get_type()
        assert mine.shape == reference.shape
        assert _same(a["g"].attrs[name], b["g"].attrs[name])
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize(
    "data",
    [
        np.arange(12, dtype="f4").reshape(3, 4),
        np.array(2.5, dtype="f8"),
        np.zeros((0, 3), dtype="i8"),
        np.arange(4).astype(ml_dtypes.bfloat16),
    ],
    ids=["matrix", "scalar", "empty", "bfloat16"],
)
def test_create_dataset_matches_h5py(tmp_path: Path, data: np.ndarray) -> None:
    ours, theirs = tmp_path / "ours.h5", tmp_path / "theirs.h5"
    with h5py.File(ours, "w") as f:
        h5_direct.create_dataset(f.id, "a/b/x", data)
    with h5py.File(theirs, "w") as f:
        f.create_dataset("a/b/x", data=data)
    with h5py.File(ours, "r") as a, h5py.File(theirs, "r") as b:
        mine, reference = a["a/b/x"], b["a/b/x"]
        assert mine.id.get_type() == reference.id.get_type()
        assert (mine.shape, mine.dtype) == (reference.shape, reference.dtype)
        out = np.empty(data.shape, mine.dtype)
        h5_direct.read_into(mine.id, out)
        np.testing.assert_array_equal(out.view(data.dtype), data)
    assert ours.read_bytes() == theirs.read_bytes()  # the same properties: no timestamps


def test_names_and_links(tmp_path: Path) -> None:
    path = tmp_path / "a.h5"
    with h5py.File(path, "w") as f:
        f.create_group("b/vars")
        f.create_group("größe")
        f["soft"] = h5py.SoftLink("/b")
        f["external"] = h5py.ExternalLink("other.h5", "/x")
    with h5py.File(path, "r") as f:
        root = h5_direct.root(f)
        assert h5_direct.names(root) == list(f)
        kinds = {name: h5_direct.link_kind(root, name) for name in h5_direct.names(root)}
        assert kinds == {
            "b": "HardLink",
            "external": "ExternalLink",
            "größe": "HardLink",
            "soft": "SoftLink",
        }
        assert h5_direct.has(root, "größe") and not h5_direct.has(root, "absent")
        assert isinstance(h5_direct.open_object(root, "b"), h5py.h5g.GroupID)


def test_names_that_are_not_utf8_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "a.h5"
    with h5py.File(path, "w") as f:
        f.create_group(b"\xff\xfe")
        f.attrs[b"\xff"] = 1
    with h5py.File(path, "r") as f:
        root = h5_direct.root(f)
        (name,) = h5_direct.names(root)
        assert h5_direct.link_kind(root, name) == "HardLink"
        assert isinstance(h5_direct.open_object(root, name), h5py.h5g.GroupID)
        assert h5_direct.read_attr(root, b"\xff") == 1
