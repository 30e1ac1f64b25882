"""Object-graph checkpoints: `Checkpoint(model=..., optimizer=..., step=...)`.

Values are keyed by the names given to `Checkpoint` and the attribute paths below them,
so a checkpoint restores into freshly built (or not yet built) objects regardless of the
order they were created in. `CheckpointManager` numbers the saves, keeps the newest
`max_to_keep`, and remembers the latest in a small JSON file.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import numpy as np

from lamina_saving.atomic import atomic_path
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import saved_values
from lamina_saving.h5_store import write_entries
from lamina_saving.job import writes_files
from lamina_saving.restore import Entries, RestoreStatus, _array, fit_value, restore_model
from lamina_saving.weights import model_entries, open_entries

SUFFIX = ".ckpt.h5"


def _is_layer(obj: Any) -> bool:
    from lamina.layers import Layer

    return isinstance(obj, Layer)


def _is_variable(obj: Any) -> bool:
    from lamina.backend.kit import Variable

    return isinstance(obj, Variable)


class Checkpoint:
    """Save and restore named objects: models, layers, optimizers and variables.

    Args:
        **objects: what to save, by name (e.g. ``model=m, optimizer=m.optimizer,
            step=lamina.Variable(0)``).

    Example:
        >>> ckpt = lamina.saving.Checkpoint(model=model, optimizer=model.optimizer)
        >>> path = ckpt.save("/tmp/run/ckpt")
        >>> status = lamina.saving.Checkpoint(model=fresh_model).restore(path)
    """

    def __init__(self, **objects: Any) -> None:
        for name, obj in objects.items():
            if not (_is_layer(obj) or _is_variable(obj) or hasattr(obj, "save_own_variables")):
                raise TypeError(
                    f"Argument `{name}` must be a layer, model, optimizer or variable. "
                    f"Received: {name}={obj!r}"
                )
            if "/" in name or name == "optimizer_of":
                raise ValueError(f"Checkpoint object name {name!r} is reserved or has '/'.")
        self._objects = dict(objects)
        self.save_counter = 0

    def _entries(self) -> Any:
        for name, obj in self._objects.items():
            if _is_layer(obj):
                yield from model_entries(obj, section=name, with_optimizer=False)
            elif _is_variable(obj):
                yield name, obj.name, obj.numpy()
            elif getattr(obj, "built", True):
                names = [v.name for v in getattr(obj, "variables", [])]
                for i, value in enumerate(saved_values(obj)):
                    yield name, names[i] if i < len(names) else str(i), value

    def write(self, file_path: Any) -> str:
        """Write every object's state to `file_path` (atomically); returns the path."""
        path = os.fspath(file_path)
        with atomic_path(path, scratch=not writes_files()) as tmp:
            write_entries(tmp, self._entries(), {"kind": "checkpoint"})
        return path

    def save(self, file_prefix: Any) -> str:
        """Write ``<file_prefix>-<n>.ckpt.h5`` with the next save number; returns the path."""
        self.save_counter += 1
        return self.write(f"{os.fspath(file_prefix)}-{self.save_counter}{SUFFIX}")

    def read(self, save_path: Any, skip_mismatch: bool = False) -> RestoreStatus:
        """Same as `restore`."""
        return self.restore(save_path, skip_mismatch)

    def restore(self, save_path: Any, skip_mismatch: bool = False) -> RestoreStatus:
        """Restore from `save_path`; objects not built yet receive values as they build.

        Returns:
            A `RestoreStatus` (``matched``, ``pending``, ``assert_consumed()``).
        """
        path = os.fspath(save_path)
        status = RestoreStatus(path)
        with open_entries(path) as entries:
            self._restore(entries, path, skip_mismatch, status)
        numbers = re.findall(r"-(\d+)" + re.escape(SUFFIX) + "$", path)
        if numbers:
            self.save_counter = int(numbers[0])
        return status

    def _restore(
        self, entries: Entries, path: str, skip_mismatch: bool, status: RestoreStatus
    ) -> None:
        used: set[str] = set()
        layers = {n: o for n, o in self._objects.items() if _is_layer(o)}
        for name, obj in self._objects.items():
            if name in layers:
                own = {k: v for k, v in entries.items() if k == name or k.startswith(f"{name}/")}
                used.update(own)
                # An optimizer saved beside its model waits with the model's values.
                for opt_name, opt in self._objects.items():
                    if opt is getattr(obj, "optimizer", None) and opt_name in entries:
                        own["optimizer"] = entries[opt_name]
                        used.add(opt_name)
                # The shared status keeps tracking values that land later (deferred).
                restore_model(obj, own, path, skip_mismatch, section=name, status=status)
            elif name in used:
                continue
            elif name not in entries:
                status.unmatched_variables.append(name)
            elif _is_variable(obj):
                used.add(name)
                obj.assign(self._variable_value(name, obj, entries[name], path))
                status.matched.append(name)
            else:
                used.add(name)
                self._restore_optimizer(name, obj, entries[name], path, status)
        status.pending += sorted(
            k for k in entries if k not in used and k.split("/")[0] not in layers
        )

    @staticmethod
    def _variable_value(name: str, variable: Any, values: Any, path: str) -> np.ndarray:
        """The one saved value of variable `name`, checked against its shape and dtype."""
        if len(values) != 1:
            raise LaminaFileError(
                path, f"entry {name!r} holds {len(values)} values; a variable has one."
            )
        saved_name, lazy = values[0]
        value = np.asarray(_array(lazy))
        where = f"variable `{name}` (saved as {saved_name!r})"
        if tuple(value.shape) != tuple(variable.shape):
            raise LaminaFileError(
                path,
                f"{where}: expected shape {tuple(variable.shape)}, got {tuple(value.shape)}.",
            )
        return fit_value(value, variable.dtype, path, where)

    @staticmethod
    def _restore_optimizer(
        name: str, obj: Any, values: list[Any], path: str, status: RestoreStatus
    ) -> None:
        if not getattr(obj, "built", True):
            raise LaminaFileError(
                path,
                f"`{name}` is an optimizer that is not built and not the optimizer of a model "
                "in this checkpoint; build it (or pass its model) before restoring.",
            )
        from lamina_saving.restore import load_optimizer

        load_optimizer(obj, values, path, False, status)


def _is_checkpoint_name(name: str) -> bool:
    """Whether `name` is a checkpoint file's plain name (nothing that leaves the folder)."""
    return (
        name.endswith(SUFFIX)
        and os.path.basename(name) == name
        and "\\" not in name
        and "\0" not in name
        and name not in (".", "..")
    )


class CheckpointManager:
    """Numbered checkpoints in a folder: keeps the newest `max_to_keep`, knows the latest.

    Args:
        checkpoint: the `Checkpoint` to save.
        directory: the folder for the files.
        max_to_keep: how many to keep (None keeps all).
        checkpoint_name: the files' stem.
    """

    STATE = "checkpoint.json"
    MAX_STATE_BYTES = 2**20

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: Any,
        max_to_keep: int | None = 5,
        checkpoint_name: str = "ckpt",
    ) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(
                "Argument `checkpoint` must be a lamina.saving.Checkpoint. "
                f"Received: checkpoint={checkpoint!r}"
            )
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep < 1):
            raise ValueError(
                "Argument `max_to_keep` must be a positive int or None. "
                f"Received: max_to_keep={max_to_keep!r}"
            )
        self.checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self.max_to_keep = max_to_keep
        self.checkpoint_name = checkpoint_name
        self._checkpoints = self._read_state()

    def _state_path(self) -> str:
        return os.path.join(self.directory, self.STATE)

    def _read_state(self) -> list[str]:
        """The kept checkpoints the state file lists: plain names of files in the folder.

        Raises:
            LaminaFileError: the state file is not the small JSON object `save` writes.
        """
        state = self._state_path()
        if not os.path.exists(state):
            return []
        try:
            with open(state, "rb") as f:
                data = f.read(self.MAX_STATE_BYTES + 1)
            if len(data) > self.MAX_STATE_BYTES:
                raise ValueError(f"more than {self.MAX_STATE_BYTES} bytes")
            content = json.loads(data.decode("utf-8"))
        except (OSError, ValueError, RecursionError) as e:
            raise LaminaFileError(state, f"unreadable manager state ({e}).") from e
        names = content.get("checkpoints") if isinstance(content, dict) else None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise LaminaFileError(
                state, 'unreadable manager state: expected {"checkpoints": [file names]}.'
            )
        return [os.path.join(self.directory, n) for n in names if _is_checkpoint_name(n)]

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's path, or None."""
        return self._checkpoints[-1] if self._checkpoints else None

    def save(self, checkpoint_number: int | None = None) -> str:
        """Save a new checkpoint, drop the oldest beyond `max_to_keep`; returns its path."""
        if checkpoint_number is None:
            checkpoint_number = self.checkpoint.save_counter + 1
        self.checkpoint.save_counter = int(checkpoint_number)
        scratch = not writes_files()
        path = os.path.join(self.directory, f"{self.checkpoint_name}-{checkpoint_number}{SUFFIX}")
        self.checkpoint.write(path)
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        while self.max_to_keep is not None and len(self._checkpoints) > self.max_to_keep:
            old = self._checkpoints.pop(0)
            if not scratch and os.path.exists(old):
                os.remove(old)
        state = atomic_path(self._state_path(), scratch=scratch)
        with state as tmp, open(tmp, "w", encoding="utf-8") as f:
            json.dump({"checkpoints": [os.path.basename(p) for p in self._checkpoints]}, f)
        return path

    def restore_or_initialize(self) -> RestoreStatus | None:
        """Restore the latest checkpoint if there is one (else leave the objects as they are)."""
        latest = self.latest_checkpoint
        return None if latest is None else self.checkpoint.restore(latest)
