"""Automatic tracking of a layer's attributes: sublayers, variables, metrics, seeds.

Assigning ``self.dense = Dense(3)`` or ``self.blocks = [Dense(3), Dense(4)]`` on a layer
records the objects so ``weights`` and ``layers`` can find them. Lists and dicts are
wrapped in `TrackedList` / `TrackedDict`, so later appends and item assignments are
recorded too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import optree


class Tracker:
    """Sorts values into named collections by a predicate per collection.

    Args:
        rules: collection name -> predicate; a value goes into the first matching one.
        on_change: called after something new is recorded (to refresh backend views).
    """

    def __init__(
        self, rules: dict[str, Callable[[Any], bool]], on_change: Callable[[], None]
    ) -> None:
        self.rules = rules
        self.collections: dict[str, list[Any]] = {name: [] for name in rules}
        self._seen: set[int] = set()
        self.locked = False
        self._on_change = on_change

    def track(self, value: Any) -> Any:
        """Record `value` (or the trackables inside it) and return what to store."""
        if isinstance(value, (TrackedList, TrackedDict)):
            return value
        if isinstance(value, list):
            return TrackedList(value, self)
        if isinstance(value, dict) and type(value) is dict:
            return TrackedDict(value, self)
        if isinstance(value, tuple):
            for item in value:
                self.track(item)
            return value
        self._record(value)
        return value

    def _record(self, value: Any) -> None:
        if id(value) in self._seen:
            return
        for name, matches in self.rules.items():
            if matches(value):
                if self.locked:
                    raise ValueError(
                        f"Cannot add {value!r} to a layer whose tracking is locked. Create "
                        "sublayers and variables in `__init__` or `build`."
                    )
                self._seen.add(id(value))
                self.collections[name].append(value)
                self._on_change()
                return

    def untrack(self, value: Any) -> None:
        """Forget `value` (when an attribute holding it is deleted or replaced)."""
        if id(value) not in self._seen:
            return
        self._seen.discard(id(value))
        for items in self.collections.values():
            for i, item in enumerate(items):
                if item is value:
                    del items[i]
                    self._on_change()
                    return


class TrackedList(list[Any]):
    """A list whose appended, inserted and assigned items are tracked by a layer."""

    def __init__(self, values: Iterable[Any] = (), tracker: Tracker | None = None) -> None:
        self._tracker = tracker
        super().__init__(self._track(v) for v in values)

    def _track(self, value: Any) -> Any:
        return self._tracker.track(value) if self._tracker is not None else value

    def append(self, value: Any) -> None:
        super().append(self._track(value))

    def insert(self, index: Any, value: Any) -> None:
        super().insert(index, self._track(value))

    def extend(self, values: Iterable[Any]) -> None:
        super().extend(self._track(v) for v in values)

    def __iadd__(self, values: Iterable[Any]) -> TrackedList:  # type: ignore[misc]
        self.extend(values)
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        old = self[index]
        for item in old if isinstance(index, slice) else [old]:
            if self._tracker is not None:
                self._tracker.untrack(item)
        if isinstance(index, slice):
            value = [self._track(v) for v in value]
        else:
            value = self._track(value)
        super().__setitem__(index, value)

    def remove(self, value: Any) -> None:
        super().remove(value)
        if self._tracker is not None:
            self._tracker.untrack(value)

    def pop(self, index: Any = -1) -> Any:
        value = super().pop(index)
        if self._tracker is not None:
            self._tracker.untrack(value)
        return value


class TrackedDict(dict[Any, Any]):
    """A dict whose assigned values are tracked by a layer."""

    def __init__(self, values: Any = (), tracker: Tracker | None = None) -> None:
        self._tracker = tracker
        super().__init__()
        for key, value in dict(values).items():
            self[key] = value

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._tracker is not None:
            if key in self:
                self._tracker.untrack(self[key])
            value = self._tracker.track(value)
        super().__setitem__(key, value)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __delitem__(self, key: Any) -> None:
        value = self[key]
        super().__delitem__(key)
        if self._tracker is not None:
            self._tracker.untrack(value)

    def pop(self, key: Any, *default: Any) -> Any:
        if key not in self:
            return dict.pop(self, key, *default)
        value = self[key]
        del self[key]
        return value


def _register_with_tree() -> None:
    """Let `lamina.tree` see inside tracked containers (they come back as plain ones)."""
    optree.register_pytree_node(
        TrackedList,
        lambda x: (list(x), None, None),
        lambda _, children: list(children),
        namespace="lamina",
    )

    def flatten_dict(d: Any) -> Any:
        keys = sorted(d)
        return [d[k] for k in keys], keys, keys

    def unflatten_dict(keys: Any, children: Any) -> dict[Any, Any]:
        return dict(zip(keys, children))

    optree.register_pytree_node(TrackedDict, flatten_dict, unflatten_dict, namespace="lamina")


_register_with_tree()
