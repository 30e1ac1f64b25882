"""Writing archives whose members are written in place: no temporary copy of the weights.

`zipfile` writes a member from bytes or a file, sequentially; an HDF5 file is written
with seeks back to its start, so `save_model` used to write the weights to a temporary
file and copy it into the zip (reading and writing every byte twice, and a CRC in pure
zlib). `ZipWriter.member` instead hands out a seekable window on the archive itself, so
h5py writes the member's bytes where they stay; the member's CRC is computed from the
page cache when the window closes, and its local header is written last, when the sizes
are known. Every member is stored (uncompressed), so readers map it in place too.

The layout is the plain one every zip reader accepts: local headers carry a zip64 extra
field (sizes are unknown when they are reserved), the central directory and its end
records use zip64 only where sizes, offsets or the member count need it.
"""

from __future__ import annotations

import contextlib
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lamina_saving.zip_member import ByteWindow, stored_crc

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_END64 = struct.Struct("<IQHHIIQQQQ")
_LOCATOR64 = struct.Struct("<IIQI")
_ZIP64 = 0x0001
_LIMIT = 0xFFFFFFFF
_COUNT_LIMIT = 0xFFFF
_UTF8 = 0x800
_VERSION = 20  # 2.0: stored members, folders
_VERSION64 = 45  # 4.5: zip64 extensions
_MADE_BY_UNIX = 3 << 8
_FILE_MODE = 0o100644 << 16


@dataclass
class _Entry:
    name: bytes
    flags: int
    offset: int
    crc: int = 0
    size: int = 0


def _dos_time(seconds: float) -> tuple[int, int]:
    t = time.localtime(seconds)
    year = max(t.tm_year, 1980)
    return (
        (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2),
        ((year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday,
    )


class MemberWindow(ByteWindow):
    """A `ByteWindow` that also writes: byte 0 is the member's first data byte, and the
    member ends at the furthest byte written (or where `truncate` puts it)."""

    def __init__(self, file: Any, start: int) -> None:
        super().__init__(file, start, 0)

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self._file.seek(self.start + self._pos)
        done = 0
        while done < len(view):  # a raw file may write less than asked
            done += self._file.write(view[done:]) or 0
        self._pos += done
        self.size = max(self.size, self._pos)
        return done

    def truncate(self, size: int | None = None) -> int:
        self.size = self._pos if size is None else size
        self._file.truncate(self.start + self.size)
        return self.size

    def flush(self) -> None:
        pass


class ZipWriter:
    """A new zip archive at `path`; every member stored. Use as a context manager: the
    central directory is written when the block ends without error."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file = open(path, "w+b", buffering=0)  # noqa: SIM115 (closed by close())
        self._entries: list[_Entry] = []
        self._time, self._date = _dos_time(time.time())
        self._end = 0

    def __enter__(self) -> ZipWriter:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        try:
            if kind is None:
                self._write_directory()
        finally:
            self._file.close()

    def _name(self, name: str) -> tuple[bytes, int]:
        try:
            return name.encode("ascii"), 0
        except UnicodeEncodeError:
            return name.encode("utf-8"), _UTF8

    def _header(self, entry: _Entry) -> bytes:
        """The local header: zip64 sizes in its extra field, so its length never changes."""
        extra = struct.pack("<HHQQ", _ZIP64, 16, entry.size, entry.size)
        fixed = _LOCAL.pack(
            0x04034B50, _VERSION64, entry.flags, 0, self._time, self._date, entry.crc,
            _LIMIT, _LIMIT, len(entry.name), len(extra),
        )  # fmt: skip
        return fixed + entry.name + extra

    def write(self, name: str, data: bytes) -> None:
        """Add a member holding `data`."""
        with self.member(name) as window:
            window.write(data)

    def write_file(self, name: str, source: str) -> None:
        """Add a member holding the file at `source`."""
        with self.member(name) as window, open(source, "rb") as f:
            while chunk := f.read(1 << 20):
                window.write(chunk)

    @contextlib.contextmanager
    def member(self, name: str) -> Iterator[MemberWindow]:
        """A window to write member `name` with seeks; its CRC and sizes are recorded
        when the block ends."""
        raw, flags = self._name(name)
        entry = _Entry(raw, flags, self._end)
        start = entry.offset + len(self._header(entry))
        window = MemberWindow(self._file, start)
        yield window
        entry.size = window.size
        entry.crc = stored_crc(self.path, start, entry.size)
        self._file.seek(entry.offset)
        self._file.write(self._header(entry))
        self._entries.append(entry)
        self._end = start + entry.size

    def _write_directory(self) -> None:
        directory = bytearray()
        for e in self._entries:
            wide = [v for v in (e.size, e.size) if v >= _LIMIT]
            if e.offset >= _LIMIT:
                wide.append(e.offset)
            extra = struct.pack(f"<HH{len(wide)}Q", _ZIP64, 8 * len(wide), *wide) if wide else b""
            directory += _CENTRAL.pack(
                0x02014B50, _MADE_BY_UNIX | _VERSION64, _VERSION64 if wide else _VERSION,
                e.flags, 0, self._time, self._date, e.crc, min(e.size, _LIMIT),
                min(e.size, _LIMIT), len(e.name), len(extra), 0, 0, 0, _FILE_MODE,
                min(e.offset, _LIMIT),
            )  # fmt: skip
            directory += e.name + extra
        start, count = self._end, len(self._entries)
        tail = bytearray()
        if count >= _COUNT_LIMIT or start >= _LIMIT or len(directory) >= _LIMIT:
            end64 = start + len(directory)
            tail += _END64.pack(
                0x06064B50, 44, _MADE_BY_UNIX | _VERSION64, _VERSION64, 0, 0, count, count,
                len(directory), start,
            )  # fmt: skip
            tail += _LOCATOR64.pack(0x07064B50, 0, end64, 1)
        tail += _END.pack(
            0x06054B50, 0, 0, min(count, _COUNT_LIMIT), min(count, _COUNT_LIMIT),
            min(len(directory), _LIMIT), min(start, _LIMIT), 0,
        )  # fmt: skip
        self._file.seek(start)
        self._file.write(bytes(directory + tail))
        self._file.truncate(start + len(directory) + len(tail))
