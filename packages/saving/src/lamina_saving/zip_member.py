"""Zip members read straight from the archive file, checked against the archive's layout.

`zipfile` trusts the central directory: it reads whichever of two same-named members comes
last, never compares a member's local header with its directory entry, accepts members
whose bytes overlap, and inflates a whole compressed member in one call before looking at
its declared size. `member_layout` refuses all of these, so every tool that reads the
archive (``unzip``, scanners, this package) sees the same members; `member_chunks` streams
a member and stops one byte past its declared size.

`zipfile`'s member reader (Python 3.11) also goes back to the member's start on every
backward seek, so h5py walking a 128 MB weights member costs seconds. A stored member is a
plain byte range of the archive: `FileWindow` seeks in it directly.

This module imports only the standard library (and ISA-L's CRC-32 when it is installed,
`crc32`): the probe's child process loads it by path.
"""

from __future__ import annotations

import io
import itertools
import os
import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

try:  # ISA-L's CRC-32 is zlib's, several times faster (and it releases the GIL too)
    from isal.isal_zlib import crc32
except ImportError:  # pragma: no cover - isal is a dependency; zlib gives the same values
    from zlib import crc32

# signature, version, flags, method, time, date, CRC, compressed size, size, name and
# extra field lengths
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_ZIP64_EXTRA = 0x0001
_UNKNOWN_SIZE = 0xFFFFFFFF
_DATA_DESCRIPTOR = 0x08
_UTF8_NAME = 0x800
_CHUNK = 1 << 20


class ByteWindow(io.RawIOBase):
    """Seekable view of the bytes ``[start, start + size)`` of the open file `file`.

    Closing the window leaves `file` open: whoever opened it closes it.
    """

    def __init__(self, file: Any, start: int, size: int) -> None:
        super().__init__()
        self._file, self.start, self.size, self._pos = file, start, size, 0

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
        return int(got)


class FileWindow(ByteWindow):
    """Read-only `ByteWindow` on the file at `path`, which it opens and closes."""

    def __init__(self, path: str, start: int, size: int) -> None:
        super().__init__(open(path, "rb"), start, size)  # noqa: SIM115 (closed by close())

    def close(self) -> None:
        self._file.close()
        super().close()


def _zip64_sizes(extra: bytes) -> tuple[int, int] | None:
    """(size, compressed size) from a local header's zip64 extra field, if it has one."""
    pos = 0
    while pos + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + length]
        if kind == _ZIP64_EXTRA and len(body) >= 16:
            size, compressed = struct.unpack_from("<QQ", body)
            return size, compressed
        pos += 4 + length
    return None


def _local_data_start(f: Any, info: zipfile.ZipInfo, file_size: int) -> int:
    """Where `info`'s data starts, after checking its local header agrees with `info`."""
    name = info.orig_filename
    if info.header_offset < 0 or info.header_offset + _LOCAL_HEADER.size > file_size:
        raise zipfile.BadZipFile(f"{name!r}: its local header lies outside the file")
    f.seek(info.header_offset)
    header = f.read(_LOCAL_HEADER.size)
    (signature, _, flags, method, _, _, crc, compressed, size, name_length, extra_length) = (
        _LOCAL_HEADER.unpack(header)
    )
    if signature != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{name!r}: bad local header signature")
    raw_name = f.read(name_length)
    extra = f.read(extra_length)
    if len(raw_name) != name_length or len(extra) != extra_length:
        raise zipfile.BadZipFile(f"{name!r}: truncated local header")
    local_name = raw_name.decode("utf-8" if flags & _UTF8_NAME else "cp437", "replace")
    if local_name != name:
        raise zipfile.BadZipFile(
            f"member {name!r} of the central directory has the name {local_name!r} in its "
            "local header"
        )
    if method != info.compress_type:
        raise zipfile.BadZipFile(
            f"{name!r}: compression method {method} in its local header, "
            f"{info.compress_type} in the central directory"
        )
    if not flags & _DATA_DESCRIPTOR:  # else the sizes follow the data instead
        if _UNKNOWN_SIZE in (size, compressed):
            sizes = _zip64_sizes(extra)
            size, compressed = sizes if sizes is not None else (info.file_size, -1)
        if (crc, size, compressed) != (info.CRC, info.file_size, info.compress_size):
            raise zipfile.BadZipFile(
                f"{name!r}: its local header (CRC {crc:#x}, {size} bytes, {compressed} "
                f"compressed) disagrees with the central directory (CRC {info.CRC:#x}, "
                f"{info.file_size} bytes, {info.compress_size} compressed)"
            )
    return int(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)


def member_layout(path: str, archive: zipfile.ZipFile) -> dict[str, int]:
    """Each member's data offset, by name, once the archive's layout is checked.

    Raises:
        zipfile.BadZipFile: two members share a name, a local header disagrees with the
            central directory (name, method, CRC or sizes), or a member's header and data
            overlap another member, the central directory or the end of the file.
    """
    file_size = os.path.getsize(path)
    directory_start = min(int(getattr(archive, "start_dir", file_size)), file_size)
    starts: dict[str, int] = {}
    spans: list[tuple[int, int, str]] = []
    with open(path, "rb") as f:
        for info in archive.infolist():
            name = info.orig_filename
            if name in starts:
                raise zipfile.BadZipFile(
                    f"the archive holds two members named {name!r}; tools disagree on "
                    "which one is read"
                )
            start = _local_data_start(f, info, file_size)
            end = start + info.compress_size
            if end > directory_start:
                raise zipfile.BadZipFile(
                    f"{name!r}: its data (bytes {start} to {end}) runs past the member "
                    f"area, which ends at byte {directory_start}"
                )
            starts[name] = start
            spans.append((info.header_offset, end, name))
    spans.sort()
    for (_, end, name), (next_start, _, next_name) in itertools.pairwise(spans):
        if end > next_start:
            raise zipfile.BadZipFile(f"members {name!r} and {next_name!r} overlap")
    return starts


def member_chunks(path: str, info: zipfile.ZipInfo, start: int) -> Iterator[bytes]:
    """The member's bytes (inflated), in chunks, stopping one byte past its declared size.

    Memory stays at about one chunk whatever the member holds. The CRC is checked at the
    end, so consume every chunk before trusting any.

    Raises:
        zipfile.BadZipFile: the member's data ends early, inflates to another size than
            its declared one, has bytes after its deflate stream, or fails its CRC.
    """
    name = info.orig_filename
    inflater = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
    if inflater is None and info.compress_size != info.file_size:
        raise zipfile.BadZipFile(
            f"{name!r}: stored member of {info.file_size} bytes declares "
            f"{info.compress_size} compressed bytes"
        )
    crc, left_in, left_out, pending = 0, info.compress_size, info.file_size, b""
    with open(path, "rb") as f:
        f.seek(start)
        while True:
            if not pending and left_in:
                pending = f.read(min(_CHUNK, left_in))
                if not pending:
                    raise zipfile.BadZipFile(f"{name!r}: data ends early")
                left_in -= len(pending)
            if inflater is None:
                out, pending = pending, b""
            else:
                try:
                    out = inflater.decompress(pending, min(left_out, _CHUNK) + 1)
                except zlib.error as e:
                    raise zipfile.BadZipFile(f"{name!r}: bad deflate stream ({e})") from e
                pending = inflater.unconsumed_tail
            if len(out) > left_out:
                raise zipfile.BadZipFile(
                    f"{name!r} inflates to more than its declared {info.file_size} bytes"
                )
            left_out -= len(out)
            crc = crc32(out, crc)
            if out:
                yield out
            ended = inflater.eof if inflater is not None else not left_in
            if ended or (not out and not pending and not left_in):
                break
    if inflater is not None and (not inflater.eof or left_in or pending or inflater.unused_data):
        raise zipfile.BadZipFile(f"{name!r}: deflate stream does not fill the member exactly")
    if left_out:
        raise zipfile.BadZipFile(
            f"{name!r} holds {info.file_size - left_out} bytes, not its declared {info.file_size}"
        )
    if crc != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {name!r}")


def read_member(path: str, info: zipfile.ZipInfo, start: int) -> bytes:
    """The whole member, checked (`member_chunks`); for small members such as JSON."""
    return b"".join(member_chunks(path, info, start))


def open_stored_member(path: str, info: zipfile.ZipInfo, start: int | None = None) -> FileWindow:
    """A `FileWindow` on the uncompressed member `info`, whose data begins at `start`.

    Without `start`, the member's local header (checked against `info`) says where. The
    member's CRC is checked once, in one sequential pass, before anything trusts it.

    Raises:
        zipfile.BadZipFile: the local header disagrees with `info`, or the member's bytes
            run past the end of the file or fail their CRC.
    """
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"Member {info.filename!r} is compressed; only stored ones map.")
    if start is None:
        with open(path, "rb") as f:
            start = _local_data_start(f, info, os.fstat(f.fileno()).st_size)
    if info.compress_size != info.file_size:
        raise zipfile.BadZipFile(
            f"{info.orig_filename!r}: stored member of {info.file_size} bytes declares "
            f"{info.compress_size} compressed bytes"
        )
    if stored_crc(path, start, info.file_size) != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.orig_filename!r}")
    return FileWindow(path, start, info.file_size)


def stored_crc(path: str, start: int, size: int) -> int:
    """CRC-32 of the bytes ``[start, start + size)`` of the file at `path`, read into one
    reused buffer.

    Raises:
        zipfile.BadZipFile: the file ends before ``start + size``.
    """
    crc = 0
    buffer = memoryview(bytearray(min(size, _CHUNK) or 1))
    with open(path, "rb", buffering=0) as f:
        f.seek(start)
        left = size
        while left:
            got = f.readinto(buffer[: min(left, len(buffer))])
            if not got:
                raise zipfile.BadZipFile(f"the member at byte {start} ends early")
            crc = crc32(buffer[:got], crc)
            left -= got
    return crc
