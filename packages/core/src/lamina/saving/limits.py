"""Limits on a config before anything is built from it, checked without recursion.

A config may come from a file, so its shape is checked once, at the outermost
deserialization call, before any object is created: nesting depth, number of values,
number of objects and of layers, string length, and the keys ``safe_mode`` and
``custom_objects``, which only the caller may set (a file that carries them is refused
rather than silently obeyed or ignored). Every failure is a `ValueError` that names where
in the config it is.

Sizes the config declares for tensors are not checked here: the weights reader compares
them with the weights file before allocating.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 100
"""Deepest nesting of dicts and lists (a model nested ten deep uses about 60)."""
MAX_VALUES = 20_000_000
"""Most values (dict entries and list items, at every level) in one config."""
MAX_OBJECTS = 1_000_000
"""Most objects (dicts with a ``class_name``) in one config."""
MAX_LAYERS = 100_000
"""Most entries in one ``layers`` list (a model's layers)."""
MAX_STRING = 1 << 20
"""Longest string or key, in characters."""
CALLER_ONLY_KEYS = frozenset({"safe_mode", "custom_objects"})
"""Keys that only the caller of a loading function may set, never a config."""

_CHECKED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "lamina_config_checked", default=False
)


@contextlib.contextmanager
def checked(config: Any, where: str) -> Iterator[None]:
    """Check `config` unless an enclosing call already checked the config it came from.

    Raises:
        ValueError: the config breaks one of this module's limits.
    """
    if _CHECKED.get():
        yield
        return
    check_config(config, where)
    token = _CHECKED.set(True)
    try:
        yield
    finally:
        _CHECKED.reset(token)


def check_config(config: Any, where: str = "config") -> None:
    """Raise a `ValueError` naming the place where `config` breaks a limit.

    Values that are not dicts, lists or tuples are leaves (a caller may pass objects).
    """
    values = objects = 0
    # Each item: (value, depth, path) where path is (key, parent path) or None.
    stack: list[tuple[Any, int, Any]] = [(config, 0, None)]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                _fail(where, path, f"a string of {len(value)} characters (at most {MAX_STRING})")
            continue
        if isinstance(value, dict):
            children: Any = value.items()
            if "class_name" in value:
                objects += 1
                if objects > MAX_OBJECTS:
                    _fail(where, path, f"more than {MAX_OBJECTS} objects")
            layers = value.get("layers")
            if isinstance(layers, (list, tuple)) and len(layers) > MAX_LAYERS:
                _fail(where, path, f"{len(layers)} layers (at most {MAX_LAYERS})")
        elif isinstance(value, (list, tuple)):
            children = enumerate(value)
        else:
            continue
        if depth >= MAX_DEPTH:
            _fail(where, path, f"nesting deeper than {MAX_DEPTH} levels")
        values += len(value)
        if values > MAX_VALUES:
            _fail(where, path, f"more than {MAX_VALUES} values")
        for key, child in children:
            if isinstance(value, dict):
                if isinstance(key, str) and len(key) > MAX_STRING:
                    _fail(where, path, f"a key of {len(key)} characters (at most {MAX_STRING})")
                if key in CALLER_ONLY_KEYS:
                    _fail(
                        where,
                        (key, path),
                        f"the key {key!r}, which only the caller of the loading function "
                        "may set; a config that carries it is refused",
                    )
            stack.append((child, depth + 1, (key, path)))


def _fail(where: str, path: Any, problem: str) -> None:
    raise ValueError(f"Refusing {where}: {_describe(path)} has {problem}.")


def _describe(path: Any) -> str:
    keys: list[Any] = []
    while path is not None:
        key, path = path
        keys.append(key)
    if not keys:
        return "the config"
    shown = keys[::-1]
    text = "config" + "".join(f"[{_short(k)}]" for k in shown[:12])
    return text + ("[...]" if len(shown) > 12 else "")


def _short(key: Any) -> str:
    if isinstance(key, str) and len(key) > 40:
        return repr(key[:40] + "...")
    return repr(key)

