"""Weights files in Keras 3's layout: written by Lamina, read from Keras or Lamina.

Keras 3 writes ``<path>/vars/<i>`` for every object its saving walk reaches (see
`layout`), with the object's name as the ``vars`` group's ``name`` attribute; its shards
are ``<stem>_00000.weights.h5``... beside a ``.weights.json`` whose ``weight_map`` gives
each group's shard(s). Lamina writes the single-file layout exactly, plus one attribute
per group that Keras ignores: the group's key in Lamina's own layout (``lamina_path``),
so a Lamina file still finds each layer of a model that is built only later. It reads
both, and Keras' shards.

Reading goes through `LayoutReader`, the checked `WeightsReader` taught Keras' layout:
every link, dtype, shape and storage check of the original applies to both.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import h5py
import numpy as np

from lamina_saving import h5_direct
from lamina_saving._version import __version__
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import ROOT, is_safe_component, saved_values, walk_layers
from lamina_saving.h5_store import (
    CHECKSUM_ATTR,
    CHECKSUMS,
    FORMAT,
    Dataset,
    Group,
    LazyArray,
    WeightsReader,
    write_value,
)
from lamina_saving.keras3.layout import (
    built_like,
    from_keras_values,
    keras_objects,
    keras_values,
    lamina_positions,
    to_keras_values,
)
from lamina_saving.probe import probe
from lamina_saving.restore import Entries, group_of

KERAS_VERSION = "3.15.1"
"""The Keras release whose file format these files follow (written as ``keras_version``)."""
LAMINA_PATH = "lamina_path"
WEIGHTS_SUFFIX = ".weights.h5"
INDEX_SUFFIX = ".weights.json"
MAX_INDEX_BYTES = 64 * 2**20


class KerasEntries(dict[str, list[tuple[str, Any]]]):
    """Values read in Keras 3's layout: Keras path -> ``[(index, value)]``.

    `lamina_keys` holds the Lamina-layout key a Lamina save recorded for a group.
    """

    def __init__(
        self, groups: dict[str, list[tuple[str, Any]]], lamina_keys: dict[str, str]
    ) -> None:
        super().__init__(groups)
        self.lamina_keys = lamina_keys


class LayoutReader(WeightsReader):
    """A `WeightsReader` for Lamina's own layout and for Keras 3's (``layout`` says which).

    Keras' groups may be split over shards, so a group's indexes need not start at 0
    here; `merge` checks that the shards together hold ``0..n-1``.
    """

    def _index(self) -> dict[str, list[tuple[str, Dataset]]]:
        self.layout = "lamina"
        self.lamina_keys: dict[str, str] = {}
        if _text(h5_direct.read_attr(self._root, "format")) == FORMAT:
            return super()._index()
        self.layout = "keras"
        groups: dict[str, list[tuple[str, Dataset]]] = {}
        self._collect(self._root, "", groups)
        return groups

    def _variables(self, group: Group, where: str) -> list[tuple[str, Dataset]]:
        if self.layout == "lamina":
            return super()._variables(group, where)
        keys = h5_direct.names(group)
        bad = [
            k
            for k in keys
            if not (k.isascii() and k.isdigit() and len(k) < 10 and k == str(int(k)))
        ]
        if bad:
            raise LaminaFileError(self.display, f"{where} holds {bad[0]!r}, not a variable index.")
        items = []
        for key in sorted(keys, key=int):
            items.append((key, self._dataset(group, key, where)))
        key = _text(h5_direct.read_attr(group, LAMINA_PATH))
        if isinstance(key, str) and (key == "model" or key.startswith("model/")):
            self.lamina_keys[where.rpartition("vars")[0].rstrip("/")] = key
        return items

    def lazy(self) -> dict[str, list[tuple[str, LazyArray]]]:
        if self.layout == "lamina":
            return super().lazy()
        return KerasEntries(
            {
                group: [
                    (i, LazyArray(d, self.display, f"{group}/vars/{i}", self._checksummed))
                    for i, d in items
                ]
                for group, items in self.groups.items()
            },
            dict(self.lamina_keys),
        )


def _text(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.generic):
        return value.item()
    return value


def merge(parts: list[Entries], display: str) -> KerasEntries:
    """One set of entries from shards, each group's indexes put back together."""
    groups: dict[str, dict[int, Any]] = {}
    keys: dict[str, str] = {}
    for part in parts:
        if not isinstance(part, KerasEntries):
            raise LaminaFileError(display, "a shard of a Keras index is not in Keras' layout.")
        keys.update(part.lamina_keys)
        for path, values in part.items():
            held = groups.setdefault(path, {})
            for index, value in values:
                if int(index) in held:
                    raise LaminaFileError(display, f"{path}/vars/{index} is in two shards.")
                held[int(index)] = value
    for path, held in groups.items():
        if sorted(held) != list(range(len(held))):
            raise LaminaFileError(display, f"the shards hold indexes {sorted(held)} of {path}.")
    return KerasEntries(
        {p: [(str(i), held[i]) for i in range(len(held))] for p, held in groups.items()}, keys
    )


# --- writing -------------------------------------------------------------------------------
def keras_groups(model: Any) -> Iterator[tuple[str, str, str | None, list[Any]]]:
    """``(Keras path, object name, Lamina key, values)`` for every object Keras saves."""
    from lamina.optimizers import Optimizer

    lamina_paths = {id(layer): path for path, layer in walk_layers(model)}
    for path, obj in keras_objects(model):
        if isinstance(obj, Optimizer):
            if not obj.built:
                continue
            yield path, obj.name, None, keras_values(obj, saved_values(obj))
            continue
        values = to_keras_values(obj, saved_values(obj))
        key = group_of("model", lamina_paths[id(obj)]) if id(obj) in lamina_paths else None
        yield path, obj.name, key, values


def write_weights(path: str | io.IOBase, model: Any) -> None:
    """`model`'s weights and optimizer state in Keras 3's layout, in a new HDF5 file at
    `path` (callers write to a temporary path and rename it), or into the seekable binary
    file `path` (an archive's member)."""
    import lamina

    with h5py.File(path, "w") as f:
        h5_direct.write_attr(f.id, "lamina_version", lamina.__version__)
        h5_direct.write_attr(f.id, "lamina_saving_version", __version__)
        h5_direct.write_attr(f.id, "backend", lamina.backend.backend())
        # Keras ignores this; Lamina checks every value.
        h5_direct.write_attr(f.id, CHECKSUMS, CHECKSUM_ATTR)
        for keras_path, name, key, values in keras_groups(model):
            group = h5_direct.create_group(f.id, f"{keras_path}/vars" if keras_path else "vars")
            h5_direct.write_attr(group, "name", name)
            if key is not None:
                h5_direct.write_attr(group, LAMINA_PATH, key)
            for i, value in enumerate(values):
                write_value(group, str(i), value)


# --- reading -------------------------------------------------------------------------------
def _read_index(filepath: str) -> dict[str, Any]:
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No weights index at {filepath!r}.")
    if os.path.getsize(filepath) > MAX_INDEX_BYTES:
        raise LaminaFileError(filepath, "the shard index is implausibly large.")
    try:
        with open(filepath, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError, RecursionError) as e:
        raise LaminaFileError(filepath, f"cannot read the shard index ({e}).") from e
    if not isinstance(index, dict):
        raise LaminaFileError(filepath, "the shard index is not a JSON object.")
    return index


def _shards_of(index: dict[str, Any], filepath: str) -> list[str]:
    """The shard files a Keras index names, each a plain file name beside it."""
    weight_map = index.get("weight_map")
    if not isinstance(weight_map, dict):
        raise LaminaFileError(filepath, "not a Keras shard index: it lacks `weight_map`.")
    shards: list[str] = []
    for value in weight_map.values():
        for name in value if isinstance(value, list) else [value]:
            if not (
                isinstance(name, str) and name.endswith(WEIGHTS_SUFFIX) and is_safe_component(name)
            ):
                raise LaminaFileError(
                    filepath, f"the index names {name!r}, not a weights file beside it."
                )
            if name not in shards:
                shards.append(name)
    return shards


@contextlib.contextmanager
def open_weights(
    filepath: str, lamina_index: Callable[[str], AbstractContextManager[Entries]]
) -> Iterator[Entries]:
    """The entries of a ``.weights.h5`` file or a ``.weights.json`` index, either layout.

    A Lamina-layout index is read by `lamina_index`; everything else here, with each
    file walked by the HDF5 probe before it is opened.

    Raises:
        FileNotFoundError: the file, or a shard its index names, does not exist.
        LaminaFileError: a file is damaged, forged, or not a weights file.
    """
    if filepath.endswith(INDEX_SUFFIX):
        index = _read_index(filepath)
        if "format" in index:  # Lamina's own index format
            with lamina_index(filepath) as entries:
                yield entries
            return
        folder = os.path.dirname(os.path.abspath(filepath))
        paths = [os.path.join(folder, s) for s in _shards_of(index, filepath)]
    else:
        paths = [filepath]
    with contextlib.ExitStack() as stack:
        parts = []
        for path in paths:
            if not os.path.exists(path):
                raise FileNotFoundError(f"No weights file at {path!r}.")
            probe(path)
            parts.append(stack.enter_context(LayoutReader(path, path)).lazy())
        yield parts[0] if len(parts) == 1 and filepath == paths[0] else merge(parts, filepath)


def to_lamina_entries(model: Any, entries: Entries, file: str) -> Entries:
    """`entries` keyed as `restore_model` expects; Lamina-layout entries pass unchanged.

    A Keras path maps onto the object Keras' walk reaches in `model` (or the key a
    Lamina save recorded); paths no object takes keep their name, so `restore_model`
    holds or reports them. Optimizer slots are put back in Lamina's order; a wrapped
    optimizer's own group (Keras saves a `LossScaleOptimizer`'s inner optimizer twice:
    inside the wrapper's group and on its own) is left out, the wrapper's holding it all.
    """
    if not isinstance(entries, KerasEntries):
        return entries
    from lamina.optimizers import Optimizer

    objects = dict(keras_objects(model))
    lamina_paths = _paths_once_built(model)
    out: Entries = {}
    for keras_path, values in entries.items():
        obj = objects.get(keras_path)
        if (obj is None and keras_path == "optimizer") or (
            obj is not None and obj is getattr(model, "optimizer", None)
        ):
            out["optimizer"] = _optimizer_values(model, values)
            continue
        if isinstance(obj, Optimizer) or (obj is None and keras_path.startswith("optimizer/")):
            continue
        if not values:
            continue  # Keras writes a group for every object, with or without variables
        key = entries.lamina_keys.get(keras_path)
        if key is None:
            found = lamina_paths.get(id(obj)) if obj is not None else None
            key = group_of("model", found if found is not None else keras_path)
        if key in out:
            raise LaminaFileError(file, f"two groups of the file map onto {key!r}.")
        out[key] = from_keras_values(obj, values) if obj is not None else values
    return out


def _paths_once_built(model: Any) -> dict[int, str]:
    """Each layer's Lamina path as it will be when `model` is built.

    A `Sequential` made without an `Input` puts an `InputLayer` first when it builds, which
    moves every layer of its stack one place on; values held for an unbuilt model are
    matched by path when the variables appear, so they are keyed by the later paths.
    """
    from lamina.layers import InputLayer
    from lamina.models import Sequential

    walked = list(walk_layers(model))
    at = dict(walked)
    stacks = []
    for path, layer in walked:
        prefix = [] if path == ROOT else path.split("/")
        first = at.get("/".join([*prefix, "sequence", "0"]))
        if isinstance(layer, Sequential) and not isinstance(first, InputLayer):
            stacks.append(prefix)
    out = {}
    for path, layer in walked:
        parts = [] if path == ROOT else path.split("/")
        moved = list(parts)
        for prefix in stacks:
            n = len(prefix)
            if parts[:n] == prefix and parts[n : n + 1] == ["sequence"] and len(parts) > n + 1:
                moved[n + 1] = str(int(parts[n + 1]) + 1)
        out[id(layer)] = "/".join(moved) if moved else ROOT
    return out


def _optimizer_values(model: Any, values: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        return values  # `restore_model` records that no optimizer took them
    reference = optimizer
    if not optimizer.built:
        if model.built:
            optimizer.build(model.trainable_variables)
        else:  # the values wait for the optimizer: learn its layout from a copy
            reference = built_like(optimizer, len(values))
    positions = None
    if reference is not None:
        positions = lamina_positions(reference, [tuple(a.shape) for _, a in values])
    if positions is None:
        return values  # `restore_model` reports the mismatch
    return [values[p] for p in positions]
