"""A stored zip member read straight from the archive file, for HDF5's scattered reads.

`zipfile`'s member reader (Python 3.11) goes back to the member's start on every backward
seek and reads forward again, so h5py walking a 128 MB weights member costs seconds. A
stored member is a plain byte range of the archive: `FileWindow` seeks in it directly.
`open_stored_member` checks the member's CRC once, in one sequential pass, before anything
trusts the bytes.

This module imports only the standard library: the probe's child process loads it by path.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from typing import Any

_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, then name and extra field lengths
_CHUNK = 1 << 20


class FileWindow(io.RawIOBase):
    """Read-only, seekable view of the bytes ``[start, start + size)`` of a file."""

    def __init__(self, path: str, start: int, size: int) -> None:
        super().__init__()
        self._file = open(path, "rb")  # noqa: SIM115 (closed by close())
        self.start, self.size, self._pos = start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self.size}[whence]
        if base + offset < 0:
            raise ValueError(f"Negative seek position {base + offset}.")
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        n = max(0, min(len(view), self.size - self._pos))
        if n == 0:
            return 0
        self._file.seek(self.start + self._pos)
        got = self._file.readinto(view[:n]) or 0
        self._pos += got
        return got

    def close(self) -> None:
        self._file.close()
        super().close()


def open_stored_member(path: str, info: zipfile.ZipInfo) -> FileWindow:
    """A `FileWindow` on the uncompressed member `info` of the zip file at `path`.

    Raises:
        zipfile.BadZipFile: the member's local header is missing, its bytes run past the
            end of the file, or their CRC differs from the one the archive records.
    """
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"Member {info.filename!r} is compressed; only stored ones map.")
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        header = f.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size:
            raise zipfile.BadZipFile(f"{info.filename}: truncated local header")
        signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"{info.filename}: bad local header signature")
        start = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
        if start + info.file_size > os.fstat(f.fileno()).st_size:
            raise zipfile.BadZipFile(f"{info.filename}: data runs past the end of the file")
        f.seek(start)
        crc, left = 0, info.file_size
        while left:
            chunk = f.read(min(_CHUNK, left))
            if not chunk:
                raise zipfile.BadZipFile(f"{info.filename}: data ends early")
            crc = zlib.crc32(chunk, crc)
            left -= len(chunk)
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
    return FileWindow(path, start, info.file_size)
