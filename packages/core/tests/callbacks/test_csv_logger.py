"""`CSVLogger`: columns, rows, separators, appending, non-scalar values."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from lamina import callbacks


def log_epochs(cb, epochs):
    cbl = callbacks.CallbackList([cb])
    cbl.on_train_begin()
    for epoch, logs in enumerate(epochs):
        cbl.on_epoch_end(epoch, logs)
    cbl.on_train_end()


def read(path, sep=","):
    with open(path, newline="") as f:
        return list(csv.reader(f, delimiter=sep))


def test_writes_header_and_rows(tmp_path):
    path = tmp_path / "log.csv"
    log_epochs(callbacks.CSVLogger(path), [
        {"loss": 1.5, "val_loss": 2.0, "acc": np.float32(0.25)},
        {"loss": 1.0, "val_loss": 1.5, "acc": np.array(0.5)},
    ])
    assert read(path) == [
        ["epoch", "acc", "loss", "val_loss"],
        ["0", "0.25", "1.5", "2.0"],
        ["1", "0.5", "1.0", "1.5"],
    ]


def test_val_columns_reserved_when_validation_comes_later(tmp_path):
    path = tmp_path / "log.csv"
    log_epochs(callbacks.CSVLogger(path), [{"loss": 2.0}, {"loss": 1.0, "val_loss": 3.0}])
    assert read(path) == [["epoch", "loss", "val_loss"], ["0", "2.0", "NA"], ["1", "1.0", "3.0"]]


def test_separator_and_list_values(tmp_path):
    path = tmp_path / "log.tsv"
    log_epochs(callbacks.CSVLogger(path, separator="\t"), [{"loss": 1.0, "per_class": [1, 2]}])
    rows = read(path, sep="\t")
    assert rows[0] == ["epoch", "loss", "per_class", "val_loss", "val_per_class"]
    assert rows[1] == ["0", "1.0", "[1, 2]", "NA", "NA"]


def test_append_keeps_rows_and_single_header(tmp_path):
    path = tmp_path / "log.csv"
    log_epochs(callbacks.CSVLogger(path, append=True), [{"loss": 2.0, "val_loss": 3.0}])
    log_epochs(callbacks.CSVLogger(path, append=True), [{"loss": 1.0, "val_loss": 2.0}])
    assert read(path) == [["epoch", "loss", "val_loss"], ["0", "2.0", "3.0"], ["0", "1.0", "2.0"]]
    log_epochs(callbacks.CSVLogger(path), [{"loss": 0.5, "val_loss": 0.5}])  # overwrite
    assert len(read(path)) == 2


def test_rejects_bad_separator(tmp_path):
    with pytest.raises(ValueError, match="separator=';;'"):
        callbacks.CSVLogger(tmp_path / "x.csv", separator=";;")
