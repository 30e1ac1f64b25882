"""Whole-model archives (``.lamina``, and ``.keras`` in Keras 3's schema and layout).

A zip of ``config.json`` (the model's config with its compile config),
``metadata.json`` (versions, backend, date), ``model.weights.h5`` (weights and
optimizer state) and ``assets/``. Entries are stored uncompressed, so the weights are
read in place from the zip, one array at a time. Reading refuses entries that would land
outside the target folder and sizes the zip does not back.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any

from lamina_saving._version import __version__
from lamina_saving.atomic import atomic_path
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import is_safe_component, walk_layers
from lamina_saving.h5_store import in_background, write_entries
from lamina_saving.job import writes_files
from lamina_saving.keras3.config import from_keras, to_keras
from lamina_saving.keras3.files import (
    KERAS_VERSION,
    KerasEntries,
    LayoutReader,
    to_lamina_entries,
    write_weights,
)
from lamina_saving.keras3.layout import keras_objects
from lamina_saving.probe import probe
from lamina_saving.restore import Entries, restore_model
from lamina_saving.weights import model_entries
from lamina_saving.zip_member import FileWindow, member_chunks, member_layout, stored_crc
from lamina_saving.zip_writer import ZipWriter

SUFFIXES = (".lamina", ".keras")
CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ASSETS = "assets/"
MAX_JSON_BYTES = 64 * 2**20
ALLOCATION_SLACK = 2**20
"""Values a loaded config may create beyond the weights file's: state nothing saves
(seed generators, metrics)."""
# What zipfile raises on damaged members (CRC, deflate stream, EOF, flags it can't read).
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error)
_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def _check_path(filepath: Any, what: str) -> str:
    if not isinstance(filepath, (str, os.PathLike)):
        raise TypeError(
            f"Argument `filepath` for {what} must be a path. Received: filepath={filepath!r}"
        )
    path = os.fspath(filepath)
    if not path.endswith(SUFFIXES):
        raise ValueError(
            f"Argument `filepath` for {what} must end with .lamina (or .keras). "
            f"Received: filepath={path!r}"
        )
    return path


def save_model(
    model: Any, filepath: Any, overwrite: bool = True, zipped: bool | None = None
) -> None:
    """Write architecture, weights, compile config and optimizer state to one archive."""
    path = _check_path(filepath, "save")
    if zipped is False:
        raise ValueError("Argument `zipped` must be True or None: archives are zip files.")
    import lamina
    from lamina.saving import serialize_lamina_object

    keras = path.endswith(".keras")  # Keras 3's config schema and weight layout
    config = serialize_lamina_object(model)
    config = json.dumps(to_keras(config) if keras else config)
    metadata = json.dumps(
        {
            **({"keras_version": KERAS_VERSION} if keras else {}),
            "lamina_version": lamina.__version__,
            "lamina_saving_version": __version__,
            "backend": lamina.backend.backend(),
            "date_saved": datetime.datetime.now(datetime.UTC).isoformat(),
        }
    )
    with atomic_path(path, overwrite, scratch=not writes_files()) as tmp, ZipWriter(tmp) as z:
        z.write(METADATA, metadata.encode())
        z.write(CONFIG, config.encode())
        with z.member(WEIGHTS) as member:  # h5py writes it in place, no copy
            if keras:
                write_weights(member, model)
            else:
                write_entries(member, model_entries(model))
        with tempfile.TemporaryDirectory() as work:
            assets = os.path.join(work, "assets")
            _save_assets(model, assets, keras_objects(model) if keras else walk_layers(model))
            for root, _, files in os.walk(assets):
                for name in sorted(files):
                    full = os.path.join(root, name)
                    z.write_file(ASSETS + os.path.relpath(full, assets).replace(os.sep, "/"), full)


def _save_assets(model: Any, folder: str, objects: Iterable[tuple[str, Any]]) -> None:
    for path, layer in objects:
        if hasattr(layer, "save_assets"):
            target = os.path.join(folder, *path.split("/"))
            os.makedirs(target, exist_ok=True)
            layer.save_assets(target)


class _Archive:
    """An open archive whose members passed `_check_members`: read them only through here."""

    def __init__(self, z: zipfile.ZipFile, path: str, starts: dict[str, int]) -> None:
        self.zip, self.path, self._starts = z, path, starts

    def chunks(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """The member's bytes, streamed and checked (see `member_chunks`)."""
        return member_chunks(self.path, info, self._starts[info.orig_filename])

    def read_json(self, name: str) -> Any:
        info = self.zip.getinfo(name)
        if info.file_size > MAX_JSON_BYTES:
            raise LaminaFileError(
                self.path, f"{name} is {info.file_size} bytes; refusing to parse."
            )
        try:
            return json.loads(b"".join(self.chunks(info)).decode("utf-8"))
        except (UnicodeDecodeError, RecursionError, *_ZIP_ERRORS) as e:
            raise LaminaFileError(self.path, f"{name} is not valid JSON ({e}).") from e

    @contextlib.contextmanager
    def weights(self) -> Iterator[Entries]:
        """The weights entries, read lazily from inside the zip.

        A stored member's CRC is checked before anything is read from it; where every
        dataset carries its own checksum (Lamina's files, each value checked as it is
        read), on another thread while the values load instead, failing the load when
        the block ends.
        """
        info = self.zip.getinfo(WEIGHTS)
        display = f"{self.path}:{WEIGHTS}"
        stored = info.compress_type == zipfile.ZIP_STORED  # what `save_model` writes
        start, size = self._starts[WEIGHTS], info.file_size
        member: Any
        try:
            if stored:
                if info.compress_size != size:
                    raise zipfile.BadZipFile(
                        f"{WEIGHTS!r}: stored member of {size} bytes declares "
                        f"{info.compress_size} compressed bytes"
                    )
                probe(self.path, WEIGHTS, display, (start, size))
                member = FileWindow(self.path, start, size)
            else:
                probe(self.path, WEIGHTS, display)
                member = self.zip.open(WEIGHTS)
        except _ZIP_ERRORS as e:
            raise LaminaFileError(self.path, f"cannot open {WEIGHTS} ({e}).") from e
        with member, LayoutReader(member, display, size) as reader:
            crc = in_background(stored_crc, self.path, start, size) if stored else None
            if crc is not None and not reader.checksummed:
                self._check_crc(info, crc)
            yield reader.lazy()
            if crc is not None and reader.checksummed:
                self._check_crc(info, crc)

    def _check_crc(self, info: zipfile.ZipInfo, crc: Future[int]) -> None:
        try:
            if crc.result() == info.CRC:
                return
            problem = f"Bad CRC-32 for file {info.orig_filename!r}"
        except _ZIP_ERRORS as e:
            problem = str(e)
        raise LaminaFileError(self.path, f"cannot open {WEIGHTS} ({problem}).")


@contextlib.contextmanager
def _open_zip(path: str) -> Iterator[_Archive]:
    if not os.path.exists(path):
        raise FileNotFoundError(f"No archive at {path!r}.")
    try:
        z = zipfile.ZipFile(path)
    except (*_ZIP_ERRORS, RecursionError) as e:
        raise LaminaFileError(path, f"not a readable model archive ({e}).") from e
    with z:
        yield _Archive(z, path, _check_members(z, path))


def _check_members(z: zipfile.ZipFile, path: str) -> dict[str, int]:
    """Each member's data offset, once names, methods, sizes and layout are checked."""
    size = os.path.getsize(path)
    for info in z.infolist():
        name = info.orig_filename
        parts = name[:-1].split("/") if name.endswith("/") else name.split("/")
        if not all(is_safe_component(part) for part in parts):
            raise LaminaFileError(path, f"entry {name!r} would land outside the target folder.")
        if info.compress_type not in _READABLE_METHODS or info.flag_bits & 0x1:
            raise LaminaFileError(
                path,
                f"entry {name!r} is encrypted or uses compression method "
                f"{info.compress_type}; only stored or deflated entries are read.",
            )
        if info.compress_type == zipfile.ZIP_STORED and info.file_size > size:
            raise LaminaFileError(
                path, f"entry {name!r} declares {info.file_size} bytes, more than the file."
            )
        if info.compress_type != zipfile.ZIP_STORED and info.file_size > 1000 * size + 2**20:
            raise LaminaFileError(path, f"entry {name!r} decompresses implausibly large.")
    try:
        starts = member_layout(path, z)
    except _ZIP_ERRORS as e:
        raise LaminaFileError(path, f"not a well-formed model archive ({e}).") from e
    missing = {CONFIG, WEIGHTS} - set(starts)
    if missing:
        raise LaminaFileError(path, f"not a model archive: it lacks {sorted(missing)}.")
    return starts


@contextlib.contextmanager
def open_archive_weights(path: str) -> Iterator[Entries]:
    """The archive's weights entries, read lazily from inside the zip."""
    with _open_zip(path) as archive, archive.weights() as entries:
        yield entries


def _allocation_check(path: str, entries: Entries) -> Callable[[str, tuple[int, ...], str], None]:
    """Refuses variables beyond what the weights file can fill (plus `ALLOCATION_SLACK`).

    A config is a few bytes that can name any size (``Dense(units=2e8)``); the weights
    file's declared shapes were checked against its own size. Sizes count values, not
    bytes, so a file saved in another dtype still fits.
    """
    held = sum(math.prod(value.shape) for values in entries.values() for _, value in values)
    left = held + ALLOCATION_SLACK

    def check(variable: str, shape: tuple[int, ...], dtype: str) -> None:
        nonlocal left
        count = math.prod(shape)
        if count > left:
            raise LaminaFileError(
                path,
                f"the config creates variable {variable!r} of shape {shape} ({dtype}), "
                f"{count} values, but the weights file holds {held} values in all and "
                f"{max(left - ALLOCATION_SLACK, 0)} of them are left; refusing to allocate it.",
            )
        left -= count

    return check


def load_model(
    filepath: Any,
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Rebuild a model saved by `save_model`: architecture, weights, compile state.

    Classes resolve only through the serialization registry and `custom_objects`;
    Python code in the file (``Lambda``) is refused unless ``safe_mode=False``. The
    weights file is checked first, and the config may not create variables larger than
    the weights it holds.

    Raises:
        LaminaFileError: the file is not a valid archive, its weights don't fit, or its
            config fails to build a model (the cause is chained).
        ValueError: the config names a class that is not registered.
    """
    path = _check_path(filepath, "load_model")
    with _open_zip(path) as archive:
        config = archive.read_json(CONFIG)
        if not isinstance(config, dict):
            raise LaminaFileError(path, f"{CONFIG} does not describe a model.")
        if path.endswith(".keras"):
            config = from_keras(config)
        if not compile:
            config = {k: v for k, v in config.items() if k != "compile_config"}
        with archive.weights() as entries:
            model = _build(archive, config, entries, custom_objects, safe_mode)
            restore_model(model, to_lamina_entries(model, entries, path), path, False)
    return model


def _build(
    archive: _Archive,
    config: dict[str, Any],
    entries: Entries,
    custom_objects: dict[str, Any] | None,
    safe_mode: bool,
) -> Any:
    """The model `config` describes, with its assets; any failure names the file."""
    from lamina.backend.kit import initializers_skipped
    from lamina.layers import Layer
    from lamina.saving import deserialize_lamina_object

    try:
        # Every weight is assigned from the file next, and none may outgrow it.
        with initializers_skipped(_allocation_check(archive.path, entries)):
            model = deserialize_lamina_object(
                config, custom_objects=custom_objects, safe_mode=safe_mode
            )
        if not isinstance(model, Layer):
            raise LaminaFileError(
                archive.path, f"{CONFIG} describes a {type(model).__name__}, not a model."
            )
        keras = isinstance(entries, KerasEntries)  # assets sit at the weights' object paths
        _load_assets(model, archive, keras_objects(model) if keras else walk_layers(model))
    except ValueError as e:  # a refusal naming the config entry, or one of ours inside it
        cause: BaseException | None = e
        while cause is not None and not isinstance(cause, LaminaFileError):
            cause = cause.__cause__
        if cause is None or cause is e:
            raise
        raise cause from None  # the deserializer wrapped it; its message says it all
    except Exception as e:  # what a forged config makes constructors raise, MemoryError too
        raise LaminaFileError(
            archive.path, f"{CONFIG} does not build a model: {type(e).__name__}: {e}"
        ) from e
    return model


def _load_assets(model: Any, archive: _Archive, objects: Iterable[tuple[str, Any]]) -> None:
    loaders = [(p, layer) for p, layer in objects if hasattr(layer, "load_assets")]
    if not loaders:
        return
    with tempfile.TemporaryDirectory() as work:
        for info in archive.zip.infolist():
            if info.filename.startswith(ASSETS) and not info.is_dir():
                target = os.path.join(work, *info.orig_filename[len(ASSETS) :].split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                try:
                    with open(target, "wb") as dst:
                        for chunk in archive.chunks(info):
                            dst.write(chunk)
                except _ZIP_ERRORS as e:
                    raise LaminaFileError(
                        archive.path, f"cannot read {info.orig_filename} ({e})."
                    ) from e
        for layer_path, layer in loaders:
            layer.load_assets(os.path.join(work, *layer_path.split("/")))
