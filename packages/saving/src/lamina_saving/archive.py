"""Whole-model archives (``.lamina``, or ``.keras`` for code written for Keras 3).

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
import os
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

from lamina_saving._version import __version__
from lamina_saving.atomic import atomic_path
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import walk_layers
from lamina_saving.h5_store import WeightsReader, write_entries
from lamina_saving.probe import probe
from lamina_saving.restore import Entries, restore_model
from lamina_saving.weights import model_entries
from lamina_saving.zip_member import open_stored_member

SUFFIXES = (".lamina", ".keras")
CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ASSETS = "assets/"
MAX_JSON_BYTES = 64 * 2**20
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
    from lamina.saving.serialization import serialize_lamina_object

    config = json.dumps(serialize_lamina_object(model))
    metadata = json.dumps(
        {
            "lamina_version": lamina.__version__,
            "lamina_saving_version": __version__,
            "backend": lamina.backend.backend(),
            "date_saved": datetime.datetime.now(datetime.UTC).isoformat(),
        }
    )
    with tempfile.TemporaryDirectory() as work, atomic_path(path, overwrite) as tmp:
        weights = os.path.join(work, WEIGHTS)
        write_entries(weights, model_entries(model))
        assets = os.path.join(work, "assets")
        _save_assets(model, assets)
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as z:
            z.writestr(METADATA, metadata)
            z.writestr(CONFIG, config)
            z.write(weights, WEIGHTS)
            for root, _, files in os.walk(assets):
                for name in sorted(files):
                    full = os.path.join(root, name)
                    z.write(full, ASSETS + os.path.relpath(full, assets).replace(os.sep, "/"))


def _save_assets(model: Any, folder: str) -> None:
    for path, layer in walk_layers(model):
        if hasattr(layer, "save_assets"):
            target = os.path.join(folder, path.replace("/", os.sep))
            os.makedirs(target, exist_ok=True)
            layer.save_assets(target)


@contextlib.contextmanager
def _open_zip(path: str) -> Iterator[zipfile.ZipFile]:
    if not os.path.exists(path):
        raise FileNotFoundError(f"No archive at {path!r}.")
    try:
        z = zipfile.ZipFile(path)
    except _ZIP_ERRORS as e:
        raise LaminaFileError(path, f"not a readable model archive ({e}).") from e
    with z:
        _check_members(z, path)
        yield z


def _check_members(z: zipfile.ZipFile, path: str) -> None:
    size = os.path.getsize(path)
    names = set()
    for info in z.infolist():
        name = info.filename
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            raise LaminaFileError(path, f"entry {name!r} would land outside the target folder.")
        if info.compress_type not in _READABLE_METHODS or info.flag_bits & 0x1:
            raise LaminaFileError(
                path, f"entry {name!r} is encrypted or uses compression method "
                f"{info.compress_type}; only stored or deflated entries are read.",
            )
        if info.compress_type == zipfile.ZIP_STORED and info.file_size > size:
            raise LaminaFileError(
                path, f"entry {name!r} declares {info.file_size} bytes, more than the file."
            )
        if info.compress_type != zipfile.ZIP_STORED and info.file_size > 1000 * size + 2**20:
            raise LaminaFileError(path, f"entry {name!r} decompresses implausibly large.")
        names.add(name)
    missing = {CONFIG, WEIGHTS} - names
    if missing:
        raise LaminaFileError(path, f"not a model archive: it lacks {sorted(missing)}.")


def _read_json(z: zipfile.ZipFile, name: str, path: str) -> Any:
    info = z.getinfo(name)
    if info.file_size > MAX_JSON_BYTES:
        raise LaminaFileError(path, f"{name} is {info.file_size} bytes; refusing to parse.")
    try:
        return json.loads(z.read(name).decode("utf-8"))
    except (UnicodeDecodeError, *_ZIP_ERRORS) as e:
        raise LaminaFileError(path, f"{name} is not valid JSON ({e}).") from e


@contextlib.contextmanager
def open_archive_weights(path: str) -> Iterator[Entries]:
    """The archive's weights entries, read lazily from inside the zip."""
    with _open_zip(path) as z:
        info = z.getinfo(WEIGHTS)
        member: Any
        try:
            if info.compress_type == zipfile.ZIP_STORED:  # what `save_model` writes
                member = open_stored_member(path, info)
                probe(path, WEIGHTS, f"{path}:{WEIGHTS}", (member.start, info.file_size))
            else:
                probe(path, WEIGHTS, f"{path}:{WEIGHTS}")
                member = z.open(WEIGHTS)
        except _ZIP_ERRORS as e:
            raise LaminaFileError(path, f"cannot open {WEIGHTS} ({e}).") from e
        with member, WeightsReader(member, f"{path}:{WEIGHTS}", info.file_size) as reader:
            yield reader.lazy()


def load_model(
    filepath: Any,
    custom_objects: dict[str, Any] | None = None,
    compile: bool = True,
    safe_mode: bool = True,
) -> Any:
    """Rebuild a model saved by `save_model`: architecture, weights, compile state.

    Classes resolve only through the serialization registry and `custom_objects`;
    Python code in the file (``Lambda``) is refused unless ``safe_mode=False``.

    Raises:
        LaminaFileError: the file is not a valid archive, or its weights don't fit.
        ValueError: the config names a class that is not registered.
    """
    path = _check_path(filepath, "load_model")
    from lamina.layers.layer import initializers_skipped
    from lamina.saving.serialization import deserialize_lamina_object

    with _open_zip(path) as z:
        config = _read_json(z, CONFIG, path)
        if not isinstance(config, dict):
            raise LaminaFileError(path, f"{CONFIG} does not describe a model.")
        if not compile:
            config = {k: v for k, v in config.items() if k != "compile_config"}
        with initializers_skipped():  # every weight is assigned from the file below
            model = deserialize_lamina_object(
                config, custom_objects=custom_objects, safe_mode=safe_mode
            )
        _load_assets(model, z, path)
    with open_archive_weights(path) as entries:
        restore_model(model, entries, path, skip_mismatch=False)
    return model


def _load_assets(model: Any, z: zipfile.ZipFile, path: str) -> None:
    loaders = [(p, layer) for p, layer in walk_layers(model) if hasattr(layer, "load_assets")]
    if not loaders:
        return
    with tempfile.TemporaryDirectory() as work:
        for info in z.infolist():
            if info.filename.startswith(ASSETS) and not info.is_dir():
                target = os.path.join(work, *info.filename[len(ASSETS):].split("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                try:
                    with z.open(info) as src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                except _ZIP_ERRORS as e:
                    raise LaminaFileError(path, f"cannot read {info.filename} ({e}).") from e
        for layer_path, layer in loaders:
            layer.load_assets(os.path.join(work, layer_path.replace("/", os.sep)))
