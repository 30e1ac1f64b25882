"""HDF5 weights files: one group per object path, one dataset per variable, read safely.

Layout: ``/<section>/<object path>/vars/<i>`` where section is ``model`` or
``optimizer``, and ``<i>`` is the variable's position in the object's
`save_own_variables` order; each dataset carries the variable's name and a CRC-32 of its
values (`checksum`) as attributes. Reading checks everything a hostile file could abuse
before touching data: links that leave the file, groups reached twice, nesting and object
counts past fixed limits, non-numeric dtypes, filters, shapes larger than the file (one
by one and all together), and data the file does not actually store.
"""

from __future__ import annotations

import io
import math
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeAlias, TypeVar

import h5py
import ml_dtypes
import numpy as np

from lamina.backend.kit import aligned_empty
from lamina_saving import h5_direct
from lamina_saving._version import __version__
from lamina_saving.errors import LaminaFileError
from lamina_saving.zip_member import crc32

FORMAT = "lamina-weights"
FORMAT_VERSION = 1
CHECKSUM_ATTR = "crc32"
"""The dataset attribute holding `checksum` of the dataset's values."""
CHECKSUMS = "checksums"
"""The file attribute saying every dataset carries a checksum (value: ``"crc32"``)."""
MAX_DEPTH = 100
"""How deeply groups may nest: far deeper than any model's attribute paths."""
MAX_OBJECTS = 500_000
"""How many links (groups, datasets) a file may hold, and attributes, which the probe also
counts; 10,000 layers use about 40,000 links and 30,000 attributes."""
BFLOAT16 = "bfloat16"
_NUMERIC_KINDS = "biufc"
_STORED_LAYOUTS = (h5py.h5d.COMPACT, h5py.h5d.CONTIGUOUS, h5py.h5d.CHUNKED)
Group: TypeAlias = h5py.h5g.GroupID
Dataset: TypeAlias = h5py.h5d.DatasetID
T = TypeVar("T")


def checksum(array: np.ndarray) -> Any:
    """CRC-32s of `array`: one `np.uint32` up to `CHECKSUM_BLOCK` bytes, else an array of
    one per block, computed on several threads (the CRC releases the GIL), so checking a
    large model costs a fraction of reading it.

    Each block's CRC starts from a header of the byte order, kind, item size and shape,
    and the block's index: a damaged dtype or shape message counts as damage too (the same
    bytes read as int32 instead of float32 would otherwise pass), and so do blocks moved.
    """
    return checksum_started(array)()


def checksum_started(array: np.ndarray) -> Callable[[], Any]:
    """`checksum` of `array`, computed on the CRC threads from now on; call the result
    for the value. Writing or reading the next array meanwhile hides its cost."""
    dtype = array.dtype
    big = dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big")
    header = f"{'>' if big else '<'}{dtype.kind}{dtype.itemsize}:{tuple(array.shape)}"
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    block = _block_size(flat.size)

    def crc(index: int) -> int:
        seed = crc32(f"{header}:{index}".encode())
        return crc32(flat[index * block : (index + 1) * block].data, seed)

    count = max(1, -(-flat.size // block))
    if count == 1:
        value = np.uint32(crc(0))
        return lambda: value
    futures = [_threads().submit(crc, i) for i in range(count)]
    return lambda: np.array([f.result() for f in futures], dtype=np.uint32)


CHECKSUM_BLOCK = 4 * 2**20
"""Bytes per CRC-32 (a larger block for arrays over 16 GiB: at most 4096 per dataset)."""
_MAX_BLOCKS = 4096
_POOL: list[ThreadPoolExecutor] = []


def _block_size(nbytes: int) -> int:
    return max(CHECKSUM_BLOCK, -(-nbytes // _MAX_BLOCKS))


def in_background(fn: Callable[..., T], *args: Any) -> Future[T]:
    """`fn(*args)` on the CRC threads (work that releases the GIL: CRCs, reads)."""
    return _threads().submit(fn, *args)


def _threads() -> ThreadPoolExecutor:
    if not _POOL:
        workers = min(8, os.cpu_count() or 1)
        _POOL.append(ThreadPoolExecutor(workers, thread_name_prefix="lamina-crc32"))
    return _POOL[0]


if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=_POOL.clear)


def write_entries(
    path: str | io.IOBase,
    entries: Iterator[tuple[str, str, Any]],
    attrs: dict[str, Any] | None = None,
) -> None:
    """Write ``(group_path, variable_name, array)`` entries; index per group in order.

    `path` is a new file's path, or a seekable binary file to write the HDF5 file into.
    """
    with h5py.File(path, "w") as f:
        file_attrs = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "lamina_saving_version": __version__,
            CHECKSUMS: CHECKSUM_ATTR,
            **(attrs or {}),
        }
        for key, value in file_attrs.items():
            h5_direct.write_attr(f.id, key, value)
        counts: dict[str, int] = {}
        for group_path, name, array in entries:
            index = counts.get(group_path, 0)
            counts[group_path] = index + 1
            dset = write_value(f.id, f"{group_path}/vars/{index}", array)
            h5_direct.write_attr(dset, "name", name)


def write_value(parent: Any, key: str, value: Any) -> h5py.h5d.DatasetID:
    """One variable's dataset at `key` under `parent` (a file or group id), with its
    checksum; bfloat16 (which HDF5 has no type for) is stored as 2-byte opaque data marked
    ``dtype="bfloat16"``, as Keras 3 does."""
    data = np.asarray(value, order="C")
    crc = checksum_started(data)  # on other threads while HDF5 writes the values
    dset = h5_direct.create_dataset(parent, key, data)
    h5_direct.write_attr(dset, CHECKSUM_ATTR, crc())
    if data.dtype.name == BFLOAT16:
        h5_direct.write_attr(dset, "dtype", BFLOAT16)
    return dset


def _is_bfloat16(dset: h5py.h5d.DatasetID) -> bool:
    """A dataset of 2-byte opaque values marked as bfloat16 (Lamina's and Keras' files)."""
    return (
        dset.dtype.kind == "V"
        and dset.dtype.itemsize == 2
        and _attr(h5_direct.read_attr(dset, "dtype")) == BFLOAT16
    )


class WeightsReader:
    """Validated read access to a weights file: ``{group_path: [(name, array), ...]}``.

    Arrays are read lazily (one dataset at a time) so loading a large model never holds
    a second full copy of it.
    """

    def __init__(self, source: Any, display: str, size: int | None = None) -> None:
        self.display = display
        try:
            self._file = h5py.File(source, "r")
        except Exception as e:  # OSError, ValueError, or worse on forged superblocks
            raise LaminaFileError(display, f"not a readable HDF5 weights file ({e}).") from e
        if size is None and isinstance(source, str):
            size = os.path.getsize(source)
        self._size = size
        self._declared = 0  # bytes declared by the datasets checked so far
        try:
            self._root = h5_direct.root(self._file)
            self._checksummed = _attr(h5_direct.read_attr(self._root, CHECKSUMS)) == CHECKSUM_ATTR
            self.groups = self._index()
        except LaminaFileError:
            self._file.close()
            raise
        except Exception as e:  # h5py raises many types on corrupt metadata
            self._file.close()
            raise LaminaFileError(self.display, f"corrupt HDF5 structure ({e}).") from e

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> WeightsReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def checksummed(self) -> bool:
        """Whether the file says every dataset carries its checksum (`CHECKSUMS`)."""
        return self._checksummed

    @property
    def attrs(self) -> dict[str, Any]:
        return {k: _attr(v) for k, v in self._file.attrs.items()}

    def _index(self) -> dict[str, list[tuple[str, Dataset]]]:
        fmt = h5_direct.read_attr(self._root, "format")
        if _attr(fmt) != FORMAT:
            raise LaminaFileError(
                self.display, f"not a Lamina weights file (format attribute {_attr(fmt)!r})."
            )
        groups: dict[str, list[tuple[str, Dataset]]] = {}
        self._collect(self._root, "", groups)
        return groups

    def _collect(
        self, group: Group, prefix: str, out: dict[str, list[tuple[str, Dataset]]]
    ) -> None:
        """Every ``vars`` group under `group` into `out`, walked without recursion.

        A group reached by a second path (a shared or cyclic hard link) is refused, and
        so are nesting deeper than `MAX_DEPTH` and more than `MAX_OBJECTS` links: the cost
        of the walk stays proportional to what the file really holds.
        """
        seen = {group}
        stack = [(group, prefix, 0)]
        objects = 0
        while stack:
            current, base, depth = stack.pop()
            children = []
            for key in h5_direct.names(current):
                where = f"{base}{key}"
                objects += 1
                link = h5_direct.link_kind(current, key)
                if link != "HardLink":
                    raise LaminaFileError(
                        self.display,
                        f"entry {where!r} is a {link}; links are refused "
                        "because they can point outside the file.",
                    )
                item = h5_direct.open_object(current, key)
                if not isinstance(item, h5py.h5g.GroupID):
                    raise LaminaFileError(
                        self.display, f"unexpected dataset {where!r} outside vars."
                    )
                if item in seen:
                    raise LaminaFileError(
                        self.display,
                        f"group {where!r} is reached by a second path (a shared or cyclic "
                        "link); refused.",
                    )
                seen.add(item)
                if key == "vars":
                    objects += len(item)
                    self._count(objects)
                    out[base.rstrip("/")] = self._variables(item, where)
                elif depth + 1 >= MAX_DEPTH:
                    raise LaminaFileError(
                        self.display, f"{where!r} nests groups deeper than {MAX_DEPTH}; refused."
                    )
                else:
                    children.append((item, f"{where}/", depth + 1))
                self._count(objects)
            stack.extend(reversed(children))

    def _count(self, objects: int) -> None:
        if objects > MAX_OBJECTS:
            raise LaminaFileError(
                self.display, f"it holds more than {MAX_OBJECTS} groups and datasets; refused."
            )

    def _variables(self, group: Group, where: str) -> list[tuple[str, Dataset]]:
        items = []
        for i in range(len(group)):
            key = str(i)
            if not h5_direct.has(group, key):
                raise LaminaFileError(self.display, f"{where} lacks variable {key!r}.")
            dset = self._dataset(group, key, where)
            name = _attr(h5_direct.read_attr(dset, "name", key))
            if not isinstance(name, str):
                raise LaminaFileError(
                    self.display,
                    f"{where}/{key} has a `name` attribute of type {type(name).__name__}; "
                    "expected a string.",
                )
            items.append((name, dset))
        return items

    def _dataset(self, group: Group, key: str, where: str) -> Dataset:
        """The variable dataset `key` of `group`, checked (a hard link to stored data)."""
        link = h5_direct.link_kind(group, key)
        if link != "HardLink":
            raise LaminaFileError(self.display, f"{where}/{key} is a {link}; links are refused.")
        dset = h5_direct.open_object(group, key)
        if not isinstance(dset, h5py.h5d.DatasetID):
            raise LaminaFileError(self.display, f"{where}/{key} is not a dataset.")
        self._check(dset, f"{where}/{key}")
        return dset

    def _check(self, dset: Dataset, where: str) -> None:
        """Refuse a dataset whose values are not plainly stored inside the file."""
        dtype, shape = dset.dtype, dset.shape
        numeric = dtype.kind in _NUMERIC_KINDS or _is_bfloat16(dset)
        if not numeric or dtype.itemsize == 0:
            raise LaminaFileError(self.display, f"{where} has non-numeric dtype {dtype}; refused.")
        plist = dset.get_create_plist()
        layout = plist.get_layout()
        if plist.get_external_count() or plist.get_nfilters() or layout not in _STORED_LAYOUTS:
            raise LaminaFileError(
                self.display,
                f"{where} uses external, virtual, compressed or filtered storage; refused.",
            )
        if shape is None:
            raise LaminaFileError(self.display, f"{where} has no shape (a null dataspace).")
        nbytes = math.prod(shape) * dtype.itemsize
        self._account(nbytes, where, shape)
        stored = dset.get_storage_size()
        if stored < nbytes:
            raise LaminaFileError(
                self.display,
                f"{where} declares {nbytes} bytes but stores {stored}: its values are not in "
                "the file (unwritten or fill-value storage); refused.",
            )
        if layout == h5py.h5d.CONTIGUOUS and nbytes and self._size is not None:
            offset = dset.get_offset()
            if offset is None or offset + nbytes > self._size:
                raise LaminaFileError(
                    self.display,
                    f"{where} stores {nbytes} bytes at offset {offset}, past the end of the "
                    f"file ({self._size} bytes).",
                )

    def _account(self, nbytes: int, where: str, shape: Any) -> None:
        """Add a dataset's declared bytes: each, and all together, must fit in the file."""
        if self._size is None:
            return
        if nbytes > self._size:
            raise LaminaFileError(
                self.display,
                f"{where} declares shape {shape} ({nbytes} bytes) but the file has only "
                f"{self._size} bytes; the file is truncated or forged.",
            )
        self._declared += nbytes
        if self._declared > self._size:
            raise LaminaFileError(
                self.display,
                f"its datasets (up to {where}) declare {self._declared} bytes in total, more "
                f"than the file's {self._size} bytes; the file is truncated or forged.",
            )

    def lazy(self) -> dict[str, list[tuple[str, LazyArray]]]:
        """Every group's ``[(name, value)]``, each value read only when asked for."""
        return {
            group: [
                (name, LazyArray(d, self.display, f"{group}/{name}", self._checksummed))
                for name, d in items
            ]
            for group, items in self.groups.items()
        }


class LazyArray:
    """A dataset that reads itself on `load()`, so a restore holds one array at a time.

    A value whose dataset carries a checksum (`CHECKSUM_ATTR`) is checked against it;
    `checksum_required` (files that say every dataset has one) refuses one without.
    """

    def __init__(
        self, dataset: Dataset, display: str, where: str, checksum_required: bool = False
    ) -> None:
        self._dataset = dataset
        self._display = display
        self._where = where
        self._checksum_required = checksum_required
        self.shape = tuple(dataset.shape)

    def load(self) -> np.ndarray:
        """The values, with read failures and checksum mismatches as `LaminaFileError`."""
        return self.start()()

    def start(self) -> Callable[[], np.ndarray]:
        """Read the values now and start checking them on the CRC threads; the result
        waits for the check and gives the values (or raises as `load` does). Reading the
        next value meanwhile hides the check's cost."""
        try:
            value = _read_aligned(self._dataset)
            if _is_bfloat16(self._dataset):
                value = value.view(ml_dtypes.bfloat16)
            stored = h5_direct.read_attr(self._dataset, CHECKSUM_ATTR)
        except Exception as e:
            raise LaminaFileError(self._display, f"cannot read {self._where} ({e}).") from e
        if stored is None:
            if self._checksum_required:
                raise LaminaFileError(
                    self._display,
                    f"variable {self._where} lacks its {CHECKSUM_ATTR} checksum, which every "
                    "variable of this file carries; the file is damaged.",
                )
            return lambda: value
        pending = checksum_started(value)
        return lambda: self._checked(value, stored, np.asarray(pending(), dtype=np.int64))

    def _checked(self, value: np.ndarray, stored: Any, actual: np.ndarray) -> np.ndarray:
        saved = np.asarray(stored)
        if saved.dtype.kind not in "iu" or saved.shape != actual.shape:
            raise LaminaFileError(
                self._display,
                f"variable {self._where} has a {CHECKSUM_ATTR} attribute of dtype "
                f"{saved.dtype} and shape {saved.shape}; expected unsigned 32-bit integers "
                f"of shape {actual.shape}.",
            )
        bad = np.flatnonzero(saved.reshape(-1).astype(np.int64) != actual.reshape(-1))
        if bad.size:
            block = _block_size(value.nbytes)
            raise LaminaFileError(
                self._display,
                f"variable {self._where}: its values do not match their checksum (CRC-32 "
                f"of bytes {bad[0] * block} to {min((bad[0] + 1) * block, value.nbytes)}); "
                "the file is damaged.",
            )
        return value


def _read_aligned(dataset: Dataset) -> np.ndarray:
    """The dataset's values, read straight into a new aligned array (`kit.aligned_empty`:
    a backend can keep it as a variable's memory)."""
    shape, dtype = tuple(dataset.shape), dataset.dtype
    out = aligned_empty(shape, dtype) if shape and math.prod(shape) else np.empty(shape, dtype)
    h5_direct.read_into(dataset, out)
    return out


def _attr(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return value.item()
    return value
