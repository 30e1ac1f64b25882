"""`Config`: a dict of named values that also reads and writes them as attributes."""

from __future__ import annotations

import difflib
import json
from collections.abc import ItemsView, Iterator, KeysView, ValuesView
from typing import Any


class Config:
    """A dict-like holder of settings, read and set as attributes or items, and frozen
    on demand so that a finished configuration cannot change by mistake.

    Args:
        **kwargs: the initial values.

    Example:
        >>> config = lamina.utils.Config(learning_rate=0.1, layers=2)
        >>> config.layers = 3
        >>> config.freeze()
        >>> config["layers"], config.frozen
        (3, True)
    """

    def __init__(self, **kwargs: Any) -> None:
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        """Whether the values can no longer change."""
        return bool(object.__getattribute__(self, "_frozen"))

    def freeze(self) -> None:
        """Refuse every later change."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        """Allow changes again."""
        object.__setattr__(self, "_frozen", False)

    def _check_mutable(self) -> None:
        if self.frozen:
            raise ValueError("Cannot change a frozen Config: call `unfreeze()` first.")

    def as_dict(self) -> dict[str, Any]:
        """A shallow copy of the values as a dict."""
        return dict(self._config)

    def to_json(self) -> str:
        """The values as a JSON string."""
        return json.dumps(self._config)

    def keys(self) -> KeysView[str]:
        return self._config.keys()

    def values(self) -> ValuesView[Any]:
        return self._config.values()

    def items(self) -> ItemsView[str, Any]:
        return self._config.items()

    def get(self, keyname: str, value: Any = None) -> Any:
        return self._config.get(keyname, value)

    def pop(self, *args: Any) -> Any:
        self._check_mutable()
        return self._config.pop(*args)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._check_mutable()
        self._config.update(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        message = f"Unknown attribute: {name!r}."
        close = difflib.get_close_matches(name, list(config), n=1, cutoff=0.7)
        if close:
            message += f" Did you mean {close[0]!r}?"
        raise AttributeError(message)

    def __setattr__(self, name: str, value: Any) -> None:
        self._check_mutable()
        self._config[name] = value

    def __delattr__(self, name: str) -> None:
        self._check_mutable()
        if name not in self._config:
            raise AttributeError(f"Unknown attribute: {name!r}.")
        del self._config[name]

    def __getitem__(self, key: str) -> Any:
        return self._config[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._check_mutable()
        self._config[key] = value

    def __delitem__(self, key: str) -> None:
        self._check_mutable()
        del self._config[key]

    def __contains__(self, key: object) -> bool:
        return key in self._config

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._config))

    def __len__(self) -> int:
        return len(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"
