"""``.weights.h5`` files (and sharded ``.weights.json`` indexes): save and load weights.

A model's weights are keyed by object path (see `graph`), so they load into the same
architecture rebuilt anywhere: another process, another backend, or a model that is not
built yet (the values wait for their variables; see `restore`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Iterator
from typing import Any

import numpy as np

from lamina_saving.atomic import atomic_path
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import is_safe_component, own_variables, saved_values, walk_layers
from lamina_saving.h5_store import WeightsReader, write_entries
from lamina_saving.job import writes_files
from lamina_saving.keras3.files import open_weights, to_lamina_entries, write_weights
from lamina_saving.probe import probe
from lamina_saving.restore import Entries, RestoreStatus, group_of, restore_model

WEIGHTS_SUFFIX = ".weights.h5"
INDEX_SUFFIX = ".weights.json"
INDEX_FORMAT = "lamina-weights-index"
MAX_INDEX_BYTES = 64 * 2**20


def model_entries(
    model: Any, section: str = "model", with_optimizer: bool = True
) -> Iterator[tuple[str, str, Any]]:
    """``(group, variable name, value)`` for every layer of `model` (and its optimizer)."""
    for path, layer in walk_layers(model):
        own = own_variables(layer)
        if not own:
            continue
        names = [v.name for v in own]
        for i, value in enumerate(saved_values(layer)):
            yield group_of(section, path), names[i] if i < len(names) else str(i), value
    optimizer = getattr(model, "optimizer", None)
    if with_optimizer and optimizer is not None and getattr(optimizer, "built", False):
        names = [v.name for v in optimizer.variables]
        for i, value in enumerate(saved_values(optimizer)):
            yield "optimizer", names[i] if i < len(names) else str(i), value


def _check_suffix(filepath: str, allowed: tuple[str, ...], what: str) -> None:
    if not filepath.endswith(allowed):
        raise ValueError(
            f"Argument `filepath` for {what} must end with {' or '.join(allowed)}. "
            f"Received: filepath={filepath!r}"
        )


def save_weights(
    model: Any, filepath: Any, overwrite: bool = True, max_shard_size: float | None = None
) -> None:
    """Write `model`'s weights (and optimizer state) atomically.

    Args:
        model: the model (built, or there is nothing to save).
        filepath: ``*.weights.h5``; with `max_shard_size`, ``*.weights.json`` (an index
            beside numbered ``.weights.h5`` shards).
        overwrite: replace an existing file.
        max_shard_size: the most GB per shard.
    """
    filepath = os.fspath(filepath)
    if max_shard_size is None:
        _check_suffix(filepath, (WEIGHTS_SUFFIX,), "save_weights")
        with atomic_path(filepath, overwrite, scratch=not writes_files()) as tmp:
            write_weights(tmp, model)  # Keras 3's layout, which Keras loads as well
        return
    _check_suffix(filepath, (INDEX_SUFFIX,), "save_weights with max_shard_size")
    if not isinstance(max_shard_size, (int, float)) or max_shard_size <= 0:
        raise ValueError(
            "Argument `max_shard_size` must be a positive number of GB. "
            f"Received: max_shard_size={max_shard_size!r}"
        )
    _save_sharded(model, filepath, overwrite, int(max_shard_size * 1e9))


def _file_attrs() -> dict[str, Any]:
    import lamina

    return {"lamina_version": lamina.__version__, "backend": lamina.backend.backend()}


def _save_sharded(model: Any, index_path: str, overwrite: bool, limit: int) -> None:
    """Shards under names no earlier save used, then the index (the commit), then cleanup.

    Until the index is replaced, the previous index and every shard it names are
    untouched, so a save that raises or is killed leaves the previous set loadable; after
    it, the previous shards (and any a killed save left behind) are removed.
    """
    if not overwrite and os.path.exists(index_path):
        raise FileExistsError(f"{index_path} exists and overwrite=False.")
    scratch = not writes_files()
    shards: list[list[tuple[str, str, Any]]] = [[]]
    size = 0
    current_group = None
    for group, name, value in model_entries(model):
        nbytes = int(np.asarray(value).nbytes)
        # Whole groups stay in one shard, so each shard's indexes start at 0.
        if group != current_group and shards[-1] and size + nbytes > limit:
            shards.append([])
            size = 0
        shards[-1].append((group, name, value))
        size += nbytes
        current_group = group
    real_index = os.path.realpath(index_path)
    folder = os.path.dirname(real_index)
    stem = os.path.basename(real_index)[: -len(INDEX_SUFFIX)]
    generation = secrets.token_hex(4)
    names = [f"{stem}_{generation}_{i:05d}{WEIGHTS_SUFFIX}" for i in range(len(shards))]
    try:
        old = _read_index(index_path)["shards"] if os.path.exists(index_path) else []
    except LaminaFileError:
        old = []  # a damaged index is replaced; its shards are found as orphans below
    weight_map: dict[str, str] = {}
    written: list[str] = []
    try:
        for shard_name, entries in zip(names, shards):
            with atomic_path(os.path.join(folder, shard_name), scratch=scratch) as tmp:
                write_entries(tmp, iter(entries), _file_attrs())
            written.append(shard_name)
            for group, _, _ in entries:
                weight_map[group] = shard_name
        index = {"format": INDEX_FORMAT, "shards": names, "weight_map": weight_map}
        index_tmp = atomic_path(index_path, overwrite, scratch=scratch)
        with index_tmp as tmp, open(tmp, "w", encoding="utf-8") as f:
            json.dump(index, f, indent=1)
    except BaseException:
        for shard_name in written:
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, shard_name))
        raise
    if scratch:  # process 0 wrote the set and removes the shards it replaced
        return
    ours = re.compile(re.escape(stem) + r"_[0-9a-f]{8}_\d{5}" + re.escape(WEIGHTS_SUFFIX))
    for stale in set(old) | {n for n in os.listdir(folder) if ours.fullmatch(n)}:
        if stale not in names:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder, stale))


def _read_index(index_path: str) -> dict[str, Any]:
    """The shard index, checked: any damage is a `LaminaFileError`, whatever its kind."""
    size = os.path.getsize(index_path)
    if size > MAX_INDEX_BYTES:
        raise LaminaFileError(
            index_path,
            f"the shard index is {size} bytes; refusing to parse more than {MAX_INDEX_BYTES}.",
        )
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError, RecursionError) as e:
        raise LaminaFileError(index_path, f"cannot read the shard index ({e}).") from e
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        raise LaminaFileError(index_path, f"not a Lamina shard index (no format {INDEX_FORMAT!r}).")
    shards = index.get("shards")
    if not isinstance(shards, list) or not shards:
        raise LaminaFileError(index_path, "the shard index has no list of shards.")
    for shard in shards:
        if not (
            isinstance(shard, str) and shard.endswith(WEIGHTS_SUFFIX) and is_safe_component(shard)
        ):
            raise LaminaFileError(
                index_path,
                f"the shard index names {shard!r}, which is not a weights file "
                "name in the index's own folder.",
            )
    if len(set(shards)) != len(shards):
        raise LaminaFileError(index_path, "the shard index names a shard twice.")
    weight_map = index.get("weight_map", {})
    if not isinstance(weight_map, dict) or not all(
        isinstance(k, str) and v in shards for k, v in weight_map.items()
    ):
        raise LaminaFileError(
            index_path, "the shard index's weight_map must map group names to its shards."
        )
    return {"format": INDEX_FORMAT, "shards": shards, "weight_map": weight_map}


def _shard_entries(index_path: str, stack: contextlib.ExitStack) -> Entries:
    """Every shard's entries; a group in two shards, or in another than the index says,
    is an error: the index and its shards come from different saves."""
    index = _read_index(index_path)
    folder = os.path.dirname(os.path.realpath(index_path))
    entries: Entries = {}
    for shard in index["shards"]:
        path = os.path.join(folder, shard)
        if not os.path.isfile(path):
            raise LaminaFileError(index_path, f"the shard index names {shard!r}, which is missing.")
        probe(path)
        reader = stack.enter_context(WeightsReader(path, path))
        for group, values in reader.lazy().items():
            expected = index["weight_map"].get(group, shard)
            if group in entries or expected != shard:
                raise LaminaFileError(
                    index_path,
                    f"group {group!r} is in {shard!r} but the index puts it in "
                    f"{expected!r}: the index and its shards come from different saves.",
                )
            entries[group] = values
    return entries


@contextlib.contextmanager
def open_entries(filepath: str) -> Iterator[Entries]:
    """Every group's ``[(name, lazy value)]`` from a weights file or shard index.

    The files stay open inside the block; values are read one at a time on demand.
    """
    with contextlib.ExitStack() as stack:
        if filepath.endswith(INDEX_SUFFIX):
            if not os.path.exists(filepath):
                raise FileNotFoundError(f"No weights index at {filepath!r}.")
            yield _shard_entries(filepath, stack)
            return
        if not os.path.exists(filepath):
            raise FileNotFoundError(f"No weights file at {filepath!r}.")
        probe(filepath)
        yield stack.enter_context(WeightsReader(filepath, filepath)).lazy()


def load_weights(
    model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any
) -> RestoreStatus:
    """Load weights saved by `save_weights` (or from a ``.lamina``/``.keras`` archive).

    On a model that is not built yet, values wait and go into each variable as it is
    created. Returns a `RestoreStatus`.

    Raises:
        LaminaFileError: the file is not a valid weights file, or (without
            `skip_mismatch`) a layer's variables are missing, extra or mis-shaped.
    """
    if kwargs:
        raise TypeError(f"load_weights got unexpected arguments: {sorted(kwargs)}")
    filepath = os.fspath(filepath)
    if filepath.endswith((".lamina", ".keras")):
        from lamina_saving.archive import open_archive_weights

        opened = open_archive_weights(filepath)
    else:
        _check_suffix(filepath, (WEIGHTS_SUFFIX, INDEX_SUFFIX), "load_weights")
        opened = open_weights(filepath, open_entries)  # Lamina's or Keras 3's layout
    with opened as entries:
        return restore_model(
            model, to_lamina_entries(model, entries, filepath), filepath, skip_mismatch
        )
