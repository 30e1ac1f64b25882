"""The object graph: every layer of a model, keyed by the attribute path that reaches it.

Keys come from attribute names and list positions (``"blocks/0/dense"``), not from
creation order or generated layer names, so a model rebuilt in another process (or on
another backend) maps onto a saved file key by key.

A path names HDF5 groups and asset folders, so each of its components is made safe
(`path_component`): a dict key such as ``"../.."`` or ``"C:"`` becomes an escaped name
instead of a step out of the folder being written.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator
from typing import Any

from lamina.backend.kit import numpy_views
from lamina.layers import Layer

ROOT = "."
_ESCAPES = {c: f"%{ord(c):02X}" for c in '%/\\:*?"<>|'} | {chr(i): f"%{i:02X}" for i in range(0x20)}
_SPECIAL = {"": "%", ".": "%2E", "..": "%2E%2E"}
_NEEDS_ESCAPE = re.compile(r'[%/\\:*?"<>|\x00-\x1f]')


def path_component(key: Any) -> str:
    """`key` (an attribute name, list index or dict key) as one safe path component.

    Characters that separate paths or are invalid in file names on some system, and
    ``%`` itself, are percent-escaped; ``""``, ``"."`` and ``".."`` get escaped names.
    The mapping is one-to-one, and ordinary keys (``"dense"``, ``"0"``) are unchanged.
    """
    text = str(key)
    if text in _SPECIAL:
        return _SPECIAL[text]
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return "".join(_ESCAPES.get(c, c) for c in text)


def is_safe_component(text: str) -> bool:
    """Whether `text` is one path component that stays inside the folder it is joined to.

    Refused: empty, ``.``, ``..``, separators (``/``, ``\\``), NUL, and ``:`` (drive
    prefixes and NTFS streams). What `path_component` returns always passes.
    """
    return text not in _SPECIAL and not any(c in text for c in "/\\:\0")


_LEAVES = frozenset({str, int, float, bool, type(None), bytes})
"""Types of attribute values that are never layers nor hold any: skipped unexamined."""
_SKIPPED = frozenset({"_tracker", "_deferred_restore"})


def _children(layer: Layer) -> Iterator[tuple[str, Layer]]:
    for attr, value in (getattr(layer, "__dict__", None) or {}).items():
        if type(value) in _LEAVES or attr in _SKIPPED or not isinstance(attr, str):
            continue
        if attr.startswith("__"):
            continue
        if isinstance(value, Layer):
            yield path_component(attr.lstrip("_")), value
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if isinstance(item, Layer):
                    yield f"{path_component(attr.lstrip('_'))}/{i}", item
        elif isinstance(value, dict):
            for k, item in value.items():
                if isinstance(item, Layer):
                    yield f"{path_component(attr.lstrip('_'))}/{path_component(k)}", item


def walk_layers(root: Layer) -> Iterator[tuple[str, Layer]]:
    """``(path, layer)`` for `root` (path ``"."``) and every layer under it, each once.

    Breadth first, with a queue rather than recursion: linear in the number of layers,
    whatever the nesting depth.
    """
    seen: set[int] = set()
    queue: collections.deque[tuple[str, Layer]] = collections.deque([(ROOT, root)])
    while queue:
        path, layer = queue.popleft()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        yield path, layer
        prefix = "" if path == ROOT else f"{path}/"
        queue.extend((f"{prefix}{key}", child) for key, child in _children(layer))


def own_variables(layer: Layer) -> list[Any]:
    """The variables `layer.save_own_variables` writes, in its order."""
    return list(layer.own_variables)


def path_of(root: Layer, target: Layer) -> str | None:
    """The path of `target` under `root`, or None when it is not reachable."""
    for path, layer in walk_layers(root):
        if layer is target:
            return path
    return None


def saved_values(obj: Any) -> list[Any]:
    """What `obj.save_own_variables` stores, in order.

    Read as views of the variables' own memory where the backend keeps it on the host
    (`numpy_views`): a save writes them out at once, so the copy each would otherwise
    get is never made.
    """
    store: dict[str, Any] = {}
    with numpy_views():
        obj.save_own_variables(store)
    return [store[str(i)] for i in range(len(store))]
