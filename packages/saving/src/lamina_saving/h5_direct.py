"""h5py's low-level calls for what a weights file does once per variable.

h5py's high-level objects cost far more than the HDF5 calls under them: opening a
dataset through ``group[name]`` takes about 80 µs against 8 for ``h5o.open`` (it builds a
`File` to learn the mode and a transfer property list), and reading or writing an
attribute through ``.attrs`` about 60 to 90 µs. A small model's file has a dozen of each,
so they made loading its weights take 3 times as long as reading the same datasets.
These helpers make the same calls the high-level API makes, and write the same file:
the same types, dataspaces and creation properties (no timestamps), so files read and
written here are those Keras 3 and h5py users read.

The probe's child process (`probe`) loads this file alone, beside h5py, to walk a file
with the reader's own calls: it imports nothing but h5py and NumPy.
"""

from __future__ import annotations

from typing import Any

import h5py
import numpy as np
from h5py import h5a, h5d, h5g, h5l, h5o, h5p, h5s, h5t

_TEXT = h5py.string_dtype("utf-8")


def _link_properties(encoding: int) -> h5p.PropLCID:
    lcpl = h5p.create(h5p.LINK_CREATE)
    lcpl.set_create_intermediate_group(True)
    lcpl.set_char_encoding(encoding)
    return lcpl


_LCPL = {h5t.CSET_ASCII: _link_properties(h5t.CSET_ASCII)}


def _encoded(name: str) -> tuple[bytes, h5p.PropLCID]:
    """`name` as HDF5 stores it, ASCII where it can be (as h5py does), else UTF-8."""
    try:
        return name.encode("ascii"), _LCPL[h5t.CSET_ASCII]
    except UnicodeEncodeError:
        if h5t.CSET_UTF8 not in _LCPL:
            _LCPL[h5t.CSET_UTF8] = _link_properties(h5t.CSET_UTF8)
        return name.encode("utf-8", "surrogateescape"), _LCPL[h5t.CSET_UTF8]


def _decoded(name: bytes) -> str:
    return name.decode("utf-8", "surrogateescape")


# --- reading ---------------------------------------------------------------------------------
def root(file: h5py.File) -> h5g.GroupID:
    """The root group of an open file."""
    return h5g.open(file.id, b"/")


def names(group: h5g.GroupID) -> list[str]:
    """The names of `group`'s links, in HDF5's (alphabetical) order."""
    return [_decoded(n) for n in group]


_LINK_KINDS = {
    h5l.TYPE_HARD: "HardLink",
    h5l.TYPE_SOFT: "SoftLink",
    h5l.TYPE_EXTERNAL: "ExternalLink",
}


def link_kind(group: h5g.GroupID, name: str) -> str:
    """What link `name` in `group` is, named as h5py's classes: ``"HardLink"`` for one to
    an object of the file, ``"SoftLink"``, ``"ExternalLink"`` or ``"UserDefinedLink"``."""
    kind = group.links.get_info(_encoded(name)[0]).type
    return _LINK_KINDS.get(kind, "UserDefinedLink")


def has(group: h5g.GroupID, name: str) -> bool:
    return _encoded(name)[0] in group


def open_object(group: h5g.GroupID, name: str) -> Any:
    """The group, dataset or named type `name` of `group` (a `GroupID`, a `DatasetID`...)."""
    return h5o.open(group, _encoded(name)[0])


def read_attr(obj: Any, name: str | bytes, default: Any = None) -> Any:
    """Attribute `name` of `obj`, as ``obj.attrs.get(name, default)`` reads it: text as
    `str`, a scalar as a NumPy scalar, `h5py.Empty` for a null dataspace."""
    key = name if isinstance(name, bytes) else name.encode("utf-8")
    if not h5a.exists(obj, key):
        return default
    attr = h5a.open(obj, key)
    try:
        shape, dtype = attr.shape, attr.dtype
        if shape is None:
            return h5py.Empty(dtype)
        if dtype.subdtype is None:
            out = np.zeros(shape, dtype=dtype)
            attr.read(out)
        else:  # an array type: read as a larger array of its base type
            memory_type = h5t.py_create(dtype)
            dtype, inner = dtype.subdtype
            out = np.zeros(shape + inner, dtype=dtype)
            attr.read(out, mtype=memory_type)
    finally:
        attr.close()
    if h5t.check_string_dtype(dtype) is None or dtype.kind == "S":  # not variable-length text
        return out[()] if out.ndim == 0 else out
    texts = [_text(b) for b in out.flat]  # variable-length text arrives as bytes
    return texts[0] if out.ndim == 0 else np.array(texts, dtype=dtype).reshape(out.shape)


def _text(value: Any) -> Any:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def read_into(dataset: h5d.DatasetID, out: np.ndarray) -> None:
    """Every value of `dataset` into `out`, an array of its shape and dtype."""
    if out.size:
        dataset.read(h5s.ALL, h5s.ALL, out)


# --- writing ---------------------------------------------------------------------------------
def create_group(parent: Any, path: str) -> h5g.GroupID:
    """A new group at `path` under `parent` (a file or group id), with the groups above."""
    name, lcpl = _encoded(path)
    return h5g.create(parent, name, lcpl=lcpl)


def create_dataset(parent: Any, path: str, data: np.ndarray) -> h5d.DatasetID:
    """A new dataset holding `data` (C-contiguous), stored contiguously and without the
    creation time HDF5 would otherwise record, as h5py's ``create_dataset`` does."""
    name, lcpl = _encoded(path)
    plist = h5p.create(h5p.DATASET_CREATE)
    plist.set_obj_track_times(False)
    dataset = h5d.create(
        parent,
        name,
        h5t.py_create(data.dtype, logical=True),
        h5s.create_simple(data.shape),
        lcpl=lcpl,
        dcpl=plist,
    )
    if data.size:
        dataset.write(h5s.ALL, h5s.ALL, data)
    return dataset


def write_attr(obj: Any, name: str, value: Any) -> None:
    """Attribute `name` of `obj` set to `value` (text, a number or an array), as
    ``obj.attrs[name] = value`` writes it; `obj` has no attribute of that name yet."""
    data = (
        np.array(value, dtype=_TEXT)
        if isinstance(value, str)
        else np.asarray(value, order="C")
    )
    attr = h5a.create(
        obj,
        name.encode("utf-8"),
        h5t.py_create(data.dtype, logical=True),
        h5s.create_simple(data.shape),
    )
    try:
        attr.write(data, mtype=h5t.py_create(data.dtype))
    finally:
        attr.close()
