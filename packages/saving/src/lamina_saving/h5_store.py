"""HDF5 weights files: one group per object path, one dataset per variable, read safely.

Layout: ``/<section>/<object path>/vars/<i>`` where section is ``model`` or
``optimizer``, and ``<i>`` is the variable's position in the object's
`save_own_variables` order; each dataset carries the variable's name as an attribute.
Reading checks everything a hostile file could abuse before touching data: links that
leave the file, non-numeric dtypes, shapes larger than the file could hold, filters.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import h5py
import numpy as np

from lamina_saving._version import __version__
from lamina_saving.errors import LaminaFileError

FORMAT = "lamina-weights"
FORMAT_VERSION = 1
_NUMERIC_KINDS = "biufc"


def write_entries(
    path: str, entries: Iterator[tuple[str, str, Any]], attrs: dict[str, Any] | None = None
) -> None:
    """Write ``(group_path, variable_name, array)`` entries; index per group in order."""
    with h5py.File(path, "w") as f:
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["lamina_saving_version"] = __version__
        for key, value in (attrs or {}).items():
            f.attrs[key] = value
        counts: dict[str, int] = {}
        for group_path, name, array in entries:
            index = counts.get(group_path, 0)
            counts[group_path] = index + 1
            data = np.asarray(array)
            dset = f.create_dataset(f"{group_path}/vars/{index}", data=data)
            dset.attrs["name"] = name


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
        try:
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
    def attrs(self) -> dict[str, Any]:
        return {k: _attr(v) for k, v in self._file.attrs.items()}

    def _index(self) -> dict[str, list[tuple[str, h5py.Dataset]]]:
        fmt = self._file.attrs.get("format")
        if _attr(fmt) != FORMAT:
            raise LaminaFileError(
                self.display, f"not a Lamina weights file (format attribute {_attr(fmt)!r})."
            )
        groups: dict[str, list[tuple[str, h5py.Dataset]]] = {}
        self._collect(self._file, "", groups)
        return groups

    def _collect(
        self, group: h5py.Group, prefix: str, out: dict[str, list[tuple[str, h5py.Dataset]]]
    ) -> None:
        for key in group:
            link = group.get(key, getlink=True)
            where = f"{prefix}{key}"
            if not isinstance(link, h5py.HardLink):
                raise LaminaFileError(
                    self.display,
                    f"entry {where!r} is a {type(link).__name__}; links are refused because "
                    "they can point outside the file.",
                )
            item = group[key]
            if isinstance(item, h5py.Group):
                if key == "vars":
                    out[prefix.rstrip("/")] = self._variables(item, where)
                else:
                    self._collect(item, f"{where}/", out)
            else:
                raise LaminaFileError(self.display, f"unexpected dataset {where!r} outside vars.")

    def _variables(self, group: h5py.Group, where: str) -> list[tuple[str, h5py.Dataset]]:
        items = []
        for i in range(len(group)):
            key = str(i)
            if key not in group:
                raise LaminaFileError(self.display, f"{where} lacks variable {key!r}.")
            link = group.get(key, getlink=True)
            if not isinstance(link, h5py.HardLink):
                raise LaminaFileError(
                    self.display, f"{where}/{key} is a {type(link).__name__}; links are refused."
                )
            dset = group[key]
            if not isinstance(dset, h5py.Dataset):
                raise LaminaFileError(self.display, f"{where}/{key} is not a dataset.")
            self._check(dset, f"{where}/{key}")
            items.append((_attr(dset.attrs.get("name", key)), dset))
        return items

    def _check(self, dset: h5py.Dataset, where: str) -> None:
        if dset.dtype.kind not in _NUMERIC_KINDS:
            raise LaminaFileError(
                self.display, f"{where} has non-numeric dtype {dset.dtype}; refused."
            )
        if dset.external or dset.compression or dset.is_virtual:
            raise LaminaFileError(
                self.display, f"{where} uses external, virtual or compressed storage; refused."
            )
        nbytes = int(np.prod(dset.shape, dtype=np.float64)) * dset.dtype.itemsize
        if self._size is not None and nbytes > self._size:
            raise LaminaFileError(
                self.display,
                f"{where} declares shape {dset.shape} ({nbytes} bytes) but the file has only "
                f"{self._size} bytes; the file is truncated or forged.",
            )

    def lazy(self) -> dict[str, list[tuple[str, LazyArray]]]:
        """Every group's ``[(name, value)]``, each value read only when asked for."""
        return {
            group: [(name, LazyArray(d, self.display, f"{group}/{name}")) for name, d in items]
            for group, items in self.groups.items()
        }


class LazyArray:
    """A dataset that reads itself on `load()`, so a restore holds one array at a time."""

    def __init__(self, dataset: h5py.Dataset, display: str, where: str) -> None:
        self._dataset = dataset
        self._display = display
        self._where = where
        self.shape = tuple(dataset.shape)

    def load(self) -> np.ndarray:
        """The values, with read failures turned into `LaminaFileError`."""
        try:
            return np.asarray(self._dataset[()])
        except Exception as e:
            raise LaminaFileError(self._display, f"cannot read {self._where} ({e}).") from e


def _attr(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return value.item()
    return value
