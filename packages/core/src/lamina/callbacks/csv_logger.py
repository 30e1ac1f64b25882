"""`CSVLogger`: write every epoch's metrics as a row of a CSV file."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from typing import IO, Any

import numpy as np

from lamina.callbacks.callback import Callback


def _cell(value: Any) -> Any:
    """A CSV cell: strings and scalars as they are, sequences as a quoted list."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if isinstance(value, str):
        return value
    if isinstance(value, Iterable):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return value


class CSVLogger(Callback):
    """Streams the epoch logs to a CSV file, one row per epoch.

    The columns are ``epoch`` then the sorted log keys of the first epoch (with ``val_``
    columns added, holding "NA", when validation has not run yet).

    Args:
        filename: the CSV file path.
        separator: the column separator.
        append: append to an existing file (the header is written only when it is empty)
            instead of overwriting it.

    Raises:
        ValueError: `separator` is not a single character.
    """

    process_zero_only = True

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        if not isinstance(separator, str) or len(separator) != 1:
            raise ValueError(
                "Argument `separator` must be a single character. "
                f"Received: separator={separator!r}"
            )
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys: list[str] | None = None
        self.writer: csv.DictWriter[str] | None = None
        self.append_header = True
        self.csv_file: IO[str] | None = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        mode = "w"
        self.append_header = True
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, encoding="utf-8") as f:
                    self.append_header = not f.readline()
            mode = "a"
        directory = os.path.dirname(self.filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self.keys = None
        self.writer = None
        self.csv_file = open(self.filename, mode, newline="", encoding="utf-8")  # noqa: SIM115

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if self.csv_file is None:  # used outside fit: open on first use
            self.on_train_begin()
        assert self.csv_file is not None
        if self.keys is None:
            self.keys = sorted(logs)
            if not any(k.startswith("val_") for k in self.keys):
                # validation may start later (validation_freq > 1): keep columns for it
                self.keys.extend(f"val_{k}" for k in list(self.keys))
        if self.writer is None:
            self.writer = csv.DictWriter(
                self.csv_file,
                fieldnames=["epoch", *self.keys],
                delimiter=self.sep,
                lineterminator="\n",
                extrasaction="ignore",
            )
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update({key: _cell(logs.get(key, "NA")) for key in self.keys})
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.csv_file is not None:
            self.csv_file.close()
        self.csv_file = None
        self.writer = None
