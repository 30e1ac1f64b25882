"""`text_dataset_from_directory`: a labelled text dataset from class sub-directories."""

from __future__ import annotations

import os
from typing import Any

from lamina.utils._batches import check_format
from lamina.utils._directory import directory_dataset, shared_arguments


def text_dataset_from_directory(
    directory: str | os.PathLike[str],
    labels: Any = "inferred",
    label_mode: str | None = "int",
    class_names: list[str] | None = None,
    batch_size: int | None = 32,
    max_length: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    validation_split: float | None = None,
    subset: str | None = None,
    follow_links: bool = False,
    format: str = "tf",
    verbose: bool = True,
) -> Any:
    """A dataset of the ``.txt`` files under `directory`, one string per file.

    With ``labels="inferred"`` each sub-directory is a class (sorted, or in the order of
    `class_names`).

    Args:
        directory: the folder of text files (one sub-folder per class when inferring).
        labels: ``"inferred"``, None, or a list of integer labels, one per file in
            alphanumeric order of the paths.
        label_mode: ``"int"``, ``"categorical"``, ``"binary"`` or None (texts only).
        class_names: the sub-directories to use, in label order.
        batch_size: texts per batch, or None for single texts.
        max_length: keep at most this many bytes of each file.
        shuffle: shuffle the files (seeded) and each pass.
        seed: the shuffling seed (needed with `validation_split` and `shuffle`).
        validation_split: the fraction of files kept for validation (taken from the end).
        subset: ``"training"``, ``"validation"`` or ``"both"`` (a list of the two).
        follow_links: follow symbolic links to sub-directories.
        format: ``"tf"``.
        verbose: print how many files and classes were found.

    Returns:
        A `tf.data.Dataset` of ``tf.string`` texts when TensorFlow is installed, else a
        `lamina.utils.PyDataset` of NumPy object arrays of `str`; ``(texts, labels)`` or
        texts alone, with `class_names` and `file_paths` attributes.

    Example:
        ```python
        train = lamina.utils.text_dataset_from_directory("reviews/", batch_size=16)
        ```
    """
    shared = shared_arguments(locals())
    check_format(format)
    if max_length is not None and (
        isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1
    ):
        raise ValueError(
            "text_dataset_from_directory: argument `max_length` must be None or an int "
            f">= 1. Received: max_length={max_length!r}"
        )

    def read(path: str) -> str:
        with open(path, "rb") as f:
            data = f.read() if max_length is None else f.read(max_length)
        return data.decode("utf-8", errors="ignore")

    return directory_dataset(
        "text_dataset_from_directory",
        directory,
        formats=(".txt",),
        kind="text",
        **shared,
        read=read,
        sample_spec=((), "string"),
    )
