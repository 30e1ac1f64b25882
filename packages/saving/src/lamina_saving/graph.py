"""The object graph: every layer of a model, keyed by the attribute path that reaches it.

Keys come from attribute names and list positions (``"blocks/0/dense"``), not from
creation order or generated layer names, so a model rebuilt in another process (or on
another backend) maps onto a saved file key by key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lamina.layers import Layer

ROOT = "."


def _children(layer: Layer) -> Iterator[tuple[str, Layer]]:
    for attr, value in vars(layer).items():
        if attr.startswith("__") or attr in ("_tracker", "_deferred_restore"):
            continue
        key = attr.lstrip("_")
        if isinstance(value, Layer):
            yield key, value
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if isinstance(item, Layer):
                    yield f"{key}/{i}", item
        elif isinstance(value, dict):
            for k, item in value.items():
                if isinstance(item, Layer):
                    yield f"{key}/{k}", item


def walk_layers(root: Layer) -> Iterator[tuple[str, Layer]]:
    """``(path, layer)`` for `root` (path ``"."``) and every layer under it, each once."""
    seen: set[int] = set()
    stack: list[tuple[str, Layer]] = [(ROOT, root)]
    while stack:
        path, layer = stack.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        yield path, layer
        prefix = "" if path == ROOT else f"{path}/"
        stack.extend((f"{prefix}{key}", child) for key, child in _children(layer))


def own_variables(layer: Layer) -> list[Any]:
    """The variables `layer.save_own_variables` writes, in its order."""
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)


def path_of(root: Layer, target: Layer) -> str | None:
    """The path of `target` under `root`, or None when it is not reachable."""
    for path, layer in walk_layers(root):
        if layer is target:
            return path
    return None
