"""`BackupAndRestore`: resume an interrupted `fit` where it stopped.

The backup is the training state, not a model archive: every model variable (weights and
random-seed states) and every optimizer variable (slots, iteration count, learning rate),
saved as one ``.npz`` next to a JSON file saying which epoch it ends. Writes are atomic
(a temporary file, then a rename), so an interruption mid-write leaves the previous backup.
Restoring needs no saving package and works across backends.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from typing import Any

import numpy as np

from lamina.callbacks.callback import Callback
from lamina.distribution.engine import is_process_zero, saving_joins_every_process

_STATE = "latest.npz"
_METADATA = "training_metadata.json"
_BACKUP_SUFFIX = ".bkp"


class BackupAndRestore(Callback):
    """Backs up the training state and restores it when `fit` starts again.

    After an interruption (a crash, a preempted job), running the same `fit` with the
    same callback restores the model and optimizer variables and continues from the epoch
    after the last backup; `delete_checkpoint` removes the backup once `fit` completes.

    Args:
        backup_dir: the folder for the backup (use one per training run).
        save_freq: "epoch" (at each epoch end), an int (every that many batches; the
            epoch in progress is then run again from its start with the saved state), or
            False (never save, only restore).
        double_checkpoint: keep the previous backup too, used when the latest cannot be
            read.
        delete_checkpoint: delete the backup when `fit` ends normally.

    Raises:
        ValueError: empty `backup_dir` or bad `save_freq`.
    """

    def __init__(
        self,
        backup_dir: Any,
        save_freq: Any = "epoch",
        double_checkpoint: bool = False,
        delete_checkpoint: bool = True,
    ) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError(
                f"Argument `backup_dir` must be a folder path. Received: backup_dir={backup_dir!r}"
            )
        if not (save_freq is False or save_freq == "epoch") and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1
        ):
            raise ValueError(
                "Argument `save_freq` must be 'epoch', a positive int (batches) or False. "
                f"Received: save_freq={save_freq!r}"
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._state_path = os.path.join(self.backup_dir, _STATE)
        self._metadata_path = os.path.join(self.backup_dir, _METADATA)
        self._current_epoch = 0
        self._batches_since_save = 0
        self._resume: int | None = None

    # --- what is backed up ----------------------------------------------------------------
    def _variables(self) -> list[Any]:
        model = self.model
        variables = list(model.variables)
        optimizer = getattr(model, "optimizer", None)
        if optimizer is not None:
            variables.extend(optimizer.variables)
        return variables

    def _save(self, epoch: int, batch: int | None) -> None:
        # Every process restores; process 0 alone writes, after every process has joined
        # the gathers that read split variables whole (ModelParallel across processes).
        if not is_process_zero() and not saving_joins_every_process():
            return
        variables = self._variables()
        arrays = {f"v{i}": np.asarray(v.numpy()) for i, v in enumerate(variables)}
        if not is_process_zero():
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path in (self._state_path, self._metadata_path):
                if os.path.exists(path):
                    os.replace(path, path + _BACKUP_SUFFIX)
        tmp = self._state_path + ".tmp.npz"
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, self._state_path)
        metadata = {
            "epoch": epoch,
            "batch": batch,
            "paths": [str(getattr(v, "path", i)) for i, v in enumerate(variables)],
        }
        tmp = self._metadata_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(metadata, f)
        os.replace(tmp, self._metadata_path)

    def _read(self, suffix: str) -> tuple[dict[str, Any], list[np.ndarray[Any, Any]]] | None:
        metadata_path = self._metadata_path + suffix
        state_path = self._state_path + suffix
        if not (os.path.exists(metadata_path) and os.path.exists(state_path)):
            return None
        try:
            with open(metadata_path, encoding="utf-8") as f:
                metadata = json.load(f)
            with np.load(state_path, allow_pickle=False) as data:
                arrays = [data[f"v{i}"] for i in range(len(metadata["paths"]))]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None
        return metadata, arrays

    def _load_backup(self) -> tuple[dict[str, Any], list[np.ndarray[Any, Any]]] | None:
        found = self._read("")
        if found is None and self.double_checkpoint:
            found = self._read(_BACKUP_SUFFIX)
        if found is None and os.path.exists(self._metadata_path):
            raise ValueError(
                f"The backup in {self.backup_dir!r} cannot be read (corrupted or "
                "incomplete). Delete the folder to start over, or pass "
                "`double_checkpoint=True` to keep a second copy."
            )
        return found

    def _assign(self, arrays: list[np.ndarray[Any, Any]], paths: list[str]) -> None:
        variables = self._variables()
        if len(variables) != len(arrays):
            raise ValueError(
                f"The backup in {self.backup_dir!r} holds {len(arrays)} variables but the "
                f"model and optimizer have {len(variables)}: it was made for another model. "
                f"Received backup paths: {paths[:5]}..."
            )
        for variable, value, path in zip(variables, arrays, paths):
            if tuple(variable.shape) != tuple(value.shape):
                raise ValueError(
                    f"The backup value for {path!r} has shape {value.shape} but variable "
                    f"{getattr(variable, 'path', variable)!r} has shape {tuple(variable.shape)}."
                )
        for variable, value in zip(variables, arrays):
            variable.assign(value)

    # --- hooks ----------------------------------------------------------------------------
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._resume = None
        self._batches_since_save = 0
        found = self._load_backup()
        if found is None:
            return
        metadata, arrays = found
        epoch = int(metadata["epoch"])
        # A backup taken at an epoch end resumes with the next epoch; one taken
        # mid-epoch runs that epoch again from the saved state.
        self._resume = epoch + 1 if metadata.get("batch") is None else epoch
        model = self.model
        optimizer = getattr(model, "optimizer", None)
        if getattr(model, "built", True):
            if optimizer is not None and not getattr(optimizer, "built", True):
                optimizer.build(model.trainable_variables)
            self._assign(arrays, metadata["paths"])
            return
        if optimizer is None:
            raise ValueError(
                "BackupAndRestore cannot restore into a model that is neither built nor "
                "compiled. Build the model (call it once or give it an Input) first. "
                f"Received: model={model!r}"
            )
        # The variables appear on the first batch: the model is built, then the optimizer.
        # Restore right after the optimizer builds, before the first step runs.
        build = optimizer.build

        def build_then_restore(*args: Any, **kwargs: Any) -> Any:
            result = build(*args, **kwargs)
            del optimizer.build
            self._assign(arrays, metadata["paths"])
            return result

        optimizer.build = build_then_restore

    def _resume_epoch(self) -> int | None:
        return self._resume

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if isinstance(self.save_freq, bool) or not isinstance(self.save_freq, int):
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            steps = self.params.get("steps") if self.params else None
            epoch_done = steps is not None and batch + 1 >= steps
            self._save(self._current_epoch, None if epoch_done else batch)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, None)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self.delete_checkpoint or not is_process_zero():
            return
        for name in (_STATE, _METADATA):
            for suffix in ("", _BACKUP_SUFFIX):
                path = os.path.join(self.backup_dir, name + suffix)
                if os.path.exists(path):
                    os.remove(path)
        if os.path.isdir(self.backup_dir) and not os.listdir(self.backup_dir):
            shutil.rmtree(self.backup_dir)
