"""TensorBoard event files, written and read without TensorFlow.

An event file is a sequence of records: an 8-byte little-endian length, its masked
CRC-32C, the payload, and the payload's masked CRC-32C. Each payload is an `Event`
protocol buffer (wall time, step, and a `Summary` of tagged values). The few messages
needed (Event, Summary, HistogramProto, Image, TensorProto, SummaryMetadata) are encoded
here field by field, which keeps TensorFlow and protobuf out of the dependencies.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
import zlib
from typing import IO, Any

import numpy as np

# --- CRC-32C (Castagnoli), as TFRecord framing uses -------------------------------------
_POLY = 0x82F63B78


def _make_table() -> list[int]:
    table = []
    for n in range(256):
        crc = n
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _make_table()


def crc32c(data: bytes) -> int:
    """The CRC-32C checksum of `data`."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The CRC rotated and offset, as TFRecords store it (so CRCs of CRCs stay strong)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame_record(payload: bytes) -> bytes:
    header = struct.pack("<Q", len(payload))
    return (
        header
        + struct.pack("<I", masked_crc32c(header))
        + payload
        + struct.pack("<I", masked_crc32c(payload))
    )


# --- protocol buffer encoding ------------------------------------------------------------
def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 negatives use ten bytes, two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint((field << 3) | wire)


def _int_field(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(int(value))


def _double_field(field: int, value: float) -> bytes:
    return _key(field, 1) + struct.pack("<d", float(value))


def _float_field(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", float(value))


def _bytes_field(field: int, value: bytes | str) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else value
    return _key(field, 2) + _varint(len(data)) + data


def _packed_doubles(field: int, values: Any) -> bytes:
    data = np.asarray(values, dtype="<f8").tobytes()
    return _key(field, 2) + _varint(len(data)) + data


def _metadata(plugin: str, content: bytes = b"", data_class: int = 0) -> bytes:
    plugin_data = _bytes_field(1, plugin) + (_bytes_field(2, content) if content else b"")
    out = _bytes_field(1, plugin_data)
    if data_class:
        out += _int_field(4, data_class)
    return out


def scalar_value(tag: str, value: float) -> bytes:
    """A `Summary.Value` holding a scalar (``simple_value``)."""
    return _bytes_field(1, tag) + _float_field(2, value)


def histogram_value(tag: str, values: Any, buckets: int = 30) -> bytes:
    """A `Summary.Value` holding a `HistogramProto` of `values` in `buckets` equal bins."""
    data = np.asarray(values, dtype="float64").ravel()
    data = data[np.isfinite(data)]
    if data.size == 0:
        lo = hi = 0.0
        limits, counts = np.array([0.0]), np.array([0.0])
    else:
        lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            limits, counts = np.array([hi]), np.array([float(data.size)])
        else:
            counts_int, edges = np.histogram(data, bins=buckets, range=(lo, hi))
            limits, counts = edges[1:], counts_int.astype("float64")
    histo = (
        _double_field(1, lo)
        + _double_field(2, hi)
        + _double_field(3, float(data.size))
        + _double_field(4, float(data.sum()))
        + _double_field(5, float(np.square(data).sum()))
        + _packed_doubles(6, limits)
        + _packed_doubles(7, counts)
    )
    return _bytes_field(1, tag) + _bytes_field(5, histo)


def _png(gray: np.ndarray[Any, Any]) -> bytes:
    """An 8-bit grayscale PNG of a 2-D uint8 array."""
    height, width = gray.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + gray[r].tobytes() for r in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def image_value(tag: str, array: Any) -> bytes:
    """A `Summary.Value` holding a 2-D array as a grayscale PNG, scaled to [0, 255]."""
    data = np.asarray(array, dtype="float64")
    lo, hi = float(np.nanmin(data)), float(np.nanmax(data))
    scaled = (data - lo) / (hi - lo) if hi > lo else np.zeros_like(data)
    gray = np.nan_to_num(scaled * 255.0).round().astype("uint8")
    image = (
        _int_field(1, gray.shape[0])
        + _int_field(2, gray.shape[1])
        + _int_field(3, 1)
        + _bytes_field(4, _png(gray))
    )
    return _bytes_field(1, tag) + _bytes_field(4, image)


def text_tensor_value(tag: str, text: str, plugin: str, content: bytes = b"") -> bytes:
    """A `Summary.Value` holding a scalar string tensor (how Keras model graphs are stored)."""
    tensor = _int_field(1, 7) + _bytes_field(2, b"") + _bytes_field(8, text)  # DT_STRING
    return _bytes_field(1, tag) + _bytes_field(9, _metadata(plugin, content)) + _bytes_field(
        8, tensor
    )


def event(step: int, values: list[bytes] | None = None, wall_time: float | None = None,
          file_version: str | None = None) -> bytes:
    """An `Event` payload: the time, the step and a `Summary` of `values`."""
    out = _double_field(1, time.time() if wall_time is None else wall_time)
    out += _int_field(2, step)
    if file_version is not None:
        out += _bytes_field(3, file_version)
    if values:
        out += _bytes_field(5, b"".join(_bytes_field(1, v) for v in values))
    return out


class EventFileWriter:
    """Appends framed events to a new ``events.out.tfevents.*`` file in `logdir`."""

    _counter = 0
    _lock = threading.Lock()

    def __init__(self, logdir: str) -> None:
        os.makedirs(logdir, exist_ok=True)
        with EventFileWriter._lock:
            EventFileWriter._counter += 1
            count = EventFileWriter._counter
        name = (
            f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}."
            f"{os.getpid()}.{count}.v2"
        )
        self.path = os.path.join(logdir, name)
        self._file: IO[bytes] | None = open(self.path, "wb")  # noqa: SIM115
        self.write(event(0, file_version="brain.Event:2"))
        self.flush()

    def write(self, payload: bytes) -> None:
        if self._file is None:
            raise ValueError(f"The event file {self.path!r} is closed.")
        self._file.write(frame_record(payload))

    def add_values(self, step: int, values: list[bytes]) -> None:
        if values:
            self.write(event(step, values))

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


# --- reading (for tests and tools; the inverse of the above) -----------------------------
def read_records(path: str) -> list[bytes]:
    """The payloads of a record file, checking both CRCs of every record.

    Raises:
        ValueError: a record is truncated or a checksum does not match.
    """
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise ValueError(f"Truncated record header at byte {pos} of {path!r}.")
        header = data[pos : pos + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[pos + 8 : pos + 12])
        if header_crc != masked_crc32c(header):
            raise ValueError(f"Bad length checksum at byte {pos} of {path!r}.")
        payload = data[pos + 12 : pos + 12 + length]
        if len(payload) != length or pos + 16 + length > len(data):
            raise ValueError(f"Truncated record at byte {pos} of {path!r}.")
        (crc,) = struct.unpack("<I", data[pos + 12 + length : pos + 16 + length])
        if crc != masked_crc32c(payload):
            raise ValueError(f"Bad data checksum at byte {pos} of {path!r}.")
        out.append(payload)
        pos += 16 + length
    return out


def parse_message(data: bytes) -> list[tuple[int, Any]]:
    """Decode one protobuf message into ``(field, value)`` pairs (no schema needed).

    Varints come back as ints, fixed64/fixed32 as raw 8/4 bytes, length-delimited
    fields as bytes.
    """
    out: list[tuple[int, Any]] = []
    pos = 0

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    while pos < len(data):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            out.append((field, varint()))
        elif wire == 1:
            out.append((field, data[pos : pos + 8]))
            pos += 8
        elif wire == 2:
            length = varint()
            out.append((field, data[pos : pos + length]))
            pos += length
        elif wire == 5:
            out.append((field, data[pos : pos + 4]))
            pos += 4
        else:
            raise ValueError(f"Unsupported protobuf wire type {wire} (field {field}).")
    return out


def _decode_value(data: bytes) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for field, raw in parse_message(data):
        if field == 1:
            value["tag"] = raw.decode("utf-8")
        elif field == 2:
            value["simple_value"] = struct.unpack("<f", raw)[0]
        elif field == 4:
            image = dict(parse_message(raw))
            value["image"] = {"height": image[1], "width": image[2], "png": image[4]}
        elif field == 5:
            histo: dict[str, Any] = {}
            names = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}
            for f, r in parse_message(raw):
                if f in names:
                    histo[names[f]] = struct.unpack("<d", r)[0]
                elif f in (6, 7):
                    key = "bucket_limit" if f == 6 else "bucket"
                    histo[key] = np.frombuffer(r, dtype="<f8").tolist()
            value["histo"] = histo
        elif field == 8:
            tensor = parse_message(raw)
            value["tensor_string"] = [r for f, r in tensor if f == 8]
        elif field == 9:
            plugin = dict(parse_message(dict(parse_message(raw))[1]))
            value["plugin_name"] = plugin[1].decode("utf-8")
    return value


def read_events(path: str) -> list[dict[str, Any]]:
    """Every event of a file as a dict: wall_time, step, file_version and values."""
    events = []
    for payload in read_records(path):
        record: dict[str, Any] = {"step": 0, "values": []}
        for field, raw in parse_message(payload):
            if field == 1:
                record["wall_time"] = struct.unpack("<d", raw)[0]
            elif field == 2:
                record["step"] = raw
            elif field == 3:
                record["file_version"] = raw.decode("utf-8")
            elif field == 5:
                record["values"] = [_decode_value(v) for f, v in parse_message(raw) if f == 1]
        events.append(record)
    return events
