"""``.weights.h5`` files (and sharded ``.weights.json`` indexes): save and load weights.

A model's weights are keyed by object path (see `graph`), so they load into the same
architecture rebuilt anywhere: another process, another backend, or a model that is not
built yet (the values wait for their variables; see `restore`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from lamina_saving.atomic import atomic_path
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import own_variables, walk_layers
from lamina_saving.h5_store import WeightsReader, write_entries
from lamina_saving.probe import probe
from lamina_saving.restore import Entries, RestoreStatus, group_of, restore_model

WEIGHTS_SUFFIX = ".weights.h5"
INDEX_SUFFIX = ".weights.json"
INDEX_FORMAT = "lamina-weights-index"


def model_entries(
    model: Any, section: str = "model", with_optimizer: bool = True
) -> Iterator[tuple[str, str, Any]]:
    """``(group, variable name, value)`` for every layer of `model` (and its optimizer)."""
    for path, layer in walk_layers(model):
        own = own_variables(layer)
        if not own:
            continue
        store: dict[str, Any] = {}
        layer.save_own_variables(store)
        names = [v.name for v in own]
        for i in range(len(store)):
            name = names[i] if i < len(names) else str(i)
            yield group_of(section, path), name, store[str(i)]
    optimizer = getattr(model, "optimizer", None)
    if with_optimizer and optimizer is not None and getattr(optimizer, "built", False):
        store = {}
        optimizer.save_own_variables(store)
        names = [v.name for v in optimizer.variables]
        for i in range(len(store)):
            yield "optimizer", names[i] if i < len(names) else str(i), store[str(i)]


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
        with atomic_path(filepath, overwrite) as tmp:
            write_entries(tmp, model_entries(model), _file_attrs())
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
    stem = os.path.basename(index_path)[: -len(INDEX_SUFFIX)]
    folder = os.path.dirname(os.path.abspath(index_path))
    names = [f"{stem}_{i:05d}{WEIGHTS_SUFFIX}" for i in range(len(shards))]
    old = _read_index(index_path)["shards"] if os.path.exists(index_path) else []
    weight_map: dict[str, str] = {}
    for shard_name, entries in zip(names, shards):
        with atomic_path(os.path.join(folder, shard_name), overwrite=True) as tmp:
            write_entries(tmp, iter(entries), _file_attrs())
        for group, _, _ in entries:
            weight_map[group] = shard_name
    index = {"format": INDEX_FORMAT, "shards": names, "weight_map": weight_map}
    with atomic_path(index_path, overwrite) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    for stale in set(old) - set(names):
        path = os.path.join(folder, stale)
        if os.path.exists(path):
            os.remove(path)


def _read_index(index_path: str) -> dict[str, Any]:
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError) as e:
        raise LaminaFileError(index_path, f"cannot read the shard index ({e}).") from e
    shards = index.get("shards") if isinstance(index, dict) else None
    if index.get("format") != INDEX_FORMAT or not isinstance(shards, list) or not all(
        isinstance(s, str) and os.path.basename(s) == s and s.endswith(WEIGHTS_SUFFIX)
        for s in shards
    ):
        raise LaminaFileError(index_path, "not a Lamina shard index (or it names paths "
                              "outside its folder).")
    return index


@contextlib.contextmanager
def open_entries(filepath: str) -> Iterator[Entries]:
    """Every group's ``[(name, lazy value)]`` from a weights file or shard index.

    The files stay open inside the block; values are read one at a time on demand.
    """
    with contextlib.ExitStack() as stack:
        if filepath.endswith(INDEX_SUFFIX):
            folder = os.path.dirname(os.path.abspath(filepath))
            paths = [os.path.join(folder, s) for s in _read_index(filepath)["shards"]]
        else:
            paths = [filepath]
        entries: Entries = {}
        for path in paths:
            if not os.path.exists(path):
                raise FileNotFoundError(f"No weights file at {path!r}.")
            probe(path)
            reader = stack.enter_context(WeightsReader(path, path))
            entries.update(reader.lazy())
        yield entries


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
        opened = open_entries(filepath)
    with opened as entries:
        return restore_model(model, entries, filepath, skip_mismatch)
