"""Walk a directory of files into samples and labels, split them, and batch them.

Shared by `text_dataset_from_directory`, `image_dataset_from_directory` and
`audio_dataset_from_directory`, so that the three follow Keras 3's rules alike: labels from
the sub-directory names (sorted, or as `class_names` orders them), files in alphanumeric
order, a seeded shuffle before the split, the validation part taken from the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.utils._batches import PartSpec, SampleBatches, check_batch_size, to_output

_LABEL_MODES = ("int", "categorical", "binary", None)
# The arguments every `*_dataset_from_directory` function passes on to `directory_dataset`.
SHARED_ARGUMENTS = (
    "labels",
    "label_mode",
    "class_names",
    "batch_size",
    "shuffle",
    "seed",
    "validation_split",
    "subset",
    "follow_links",
    "verbose",
)


def shared_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """The `SHARED_ARGUMENTS` out of a caller's ``locals()``."""
    return {name: arguments[name] for name in SHARED_ARGUMENTS}


_SUBSETS = ("training", "validation", "both", None)


def check_arguments(
    caller: str,
    labels: Any,
    label_mode: Any,
    class_names: Any,
    validation_split: Any,
    subset: Any,
    shuffle: bool,
    seed: Any,
) -> tuple[Any, int | None]:
    """Keras 3's checks of the shared arguments; returns (label_mode, seed)."""
    if not (labels in ("inferred", None) or isinstance(labels, (list, tuple))):
        raise ValueError(
            f"{caller}: argument `labels` must be 'inferred', None or a list/tuple of "
            f"integer labels. Received: labels={labels!r}"
        )
    if class_names is not None and labels != "inferred":
        raise ValueError(
            f"{caller}: argument `class_names` can only be given with labels='inferred'. "
            f"Received: labels={labels!r}, class_names={class_names!r}"
        )
    if label_mode not in _LABEL_MODES:
        raise ValueError(
            f"{caller}: argument `label_mode` must be one of {_LABEL_MODES}. "
            f"Received: label_mode={label_mode!r}"
        )
    if labels is None or label_mode is None:
        label_mode = None
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(
            f"{caller}: argument `validation_split` must be between 0 and 1. "
            f"Received: validation_split={validation_split!r}"
        )
    if subset not in _SUBSETS:
        raise ValueError(
            f"{caller}: argument `subset` must be 'training', 'validation', 'both' or None. "
            f"Received: subset={subset!r}"
        )
    if (validation_split is None) != (subset is None):
        raise ValueError(
            f"{caller}: arguments `validation_split` and `subset` go together: give both "
            f"or neither. Received: validation_split={validation_split!r}, subset={subset!r}"
        )
    if validation_split is not None and shuffle and seed is None:
        raise ValueError(
            f"{caller}: with `validation_split` and `shuffle=True`, argument `seed` must "
            "be given so that the two subsets do not overlap. Received: seed=None"
        )
    if shuffle and seed is None:
        seed = int(np.random.randint(1_000_000))
    return label_mode, seed


def index_directory(
    caller: str,
    directory: str | os.PathLike[str],
    labels: Any,
    formats: tuple[str, ...] | None,
    class_names: Sequence[str] | None,
    shuffle: bool,
    seed: int | None,
    follow_links: bool,
) -> tuple[list[str], np.ndarray[Any, Any] | None, list[str]]:
    """File paths (filtered by extension), their labels and the class names.

    With ``labels="inferred"`` each sub-directory is a class; otherwise every file under
    `directory` is a sample, in alphanumeric order, and a list of `labels` gives theirs.
    """
    root = os.fspath(directory)
    if not os.path.isdir(root):
        raise ValueError(
            f"{caller}: argument `directory` must be an existing directory. "
            f"Received: directory={root!r}"
        )
    if labels == "inferred":
        found = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        if class_names is not None:
            if sorted(class_names) != found:
                raise ValueError(
                    f"{caller}: argument `class_names` must name exactly the sub-directories "
                    f"of `directory` ({found}). Received: class_names={list(class_names)!r}"
                )
            found = list(class_names)
        names = found
        paths: list[str] = []
        ids: list[int] = []
        for label, name in enumerate(names):
            files = _walk(os.path.join(root, name), formats, follow_links)
            paths += files
            ids += [label] * len(files)
        label_array: np.ndarray[Any, Any] | None = np.asarray(ids, dtype="int32")
    else:
        names = []
        paths = _walk(root, formats, follow_links)
        label_array = None
        if labels is not None:
            if len(labels) != len(paths):
                raise ValueError(
                    f"{caller}: argument `labels` must give one label per file; found "
                    f"{len(paths)} files in {root!r}. Received: {len(labels)} labels"
                )
            label_array = np.asarray(labels)
            if label_array.dtype.kind not in ("i", "u"):
                raise ValueError(
                    f"{caller}: argument `labels` must hold integers. "
                    f"Received: labels of dtype {label_array.dtype}"
                )
            names = [str(i) for i in range(int(label_array.max()) + 1)] if len(paths) else []
    if shuffle:
        # The permutation NumPy's RandomState(seed).shuffle gives: Keras 3's sample order.
        order = np.random.RandomState(seed).permutation(len(paths))
        paths = [paths[i] for i in order]
        if label_array is not None:
            label_array = label_array[order]
    return paths, label_array, names


def _walk(folder: str, formats: tuple[str, ...] | None, follow_links: bool) -> list[str]:
    found = []
    for base, dirs, files in os.walk(folder, followlinks=follow_links):
        dirs.sort()
        for name in sorted(files):
            if formats is None or name.lower().endswith(formats):
                found.append(os.path.join(base, name))
    return found


def split(
    items: list[Any], validation_split: float | None, subset: str | None
) -> tuple[list[Any], list[Any]]:
    """(training, validation) parts: the last ``int(validation_split * n)`` items validate."""
    if validation_split is None:
        return items, []
    n_val = int(validation_split * len(items))
    return items[: len(items) - n_val], items[len(items) - n_val :]


def encode_labels(labels: np.ndarray[Any, Any], label_mode: str, num_classes: int) -> Any:
    """int -> int32; categorical -> float32 one-hot; binary -> float32 of shape (n, 1)."""
    if label_mode == "int":
        return labels.astype("int32")
    if label_mode == "binary":
        return labels.astype("float32")[:, None]
    return np.eye(num_classes, dtype="float32")[labels]


def label_spec(label_mode: str, num_classes: int) -> PartSpec:
    return {
        "int": ((), "int32"),
        "binary": ((1,), "float32"),
        "categorical": ((num_classes,), "float32"),
    }[label_mode]


def directory_dataset(
    caller: str,
    directory: str | os.PathLike[str],
    *,
    formats: tuple[str, ...] | None,
    kind: str,
    labels: Any,
    label_mode: Any,
    class_names: Any,
    batch_size: Any,
    shuffle: bool,
    seed: Any,
    validation_split: Any,
    subset: Any,
    follow_links: bool,
    verbose: bool,
    read: Callable[[str], Any],
    sample_spec: PartSpec,
    wrap: Callable[[SampleBatches], Any] | None = None,
) -> Any:
    """The dataset (or ``[training, validation]`` for ``subset="both"``) of a directory.

    Args:
        read: file path -> the sample (a NumPy array, or a string for text).
        sample_spec: the sample's shape and dtype.
        wrap: builds the output from the batches (default: `to_output`).
    """
    batch_size = check_batch_size(batch_size)
    label_mode, seed = check_arguments(
        caller, labels, label_mode, class_names, validation_split, subset, shuffle, seed
    )
    paths, ids, names = index_directory(
        caller, directory, labels, formats, class_names, shuffle, seed, follow_links
    )
    if label_mode == "binary" and len(names) != 2:
        raise ValueError(
            f"{caller}: label_mode='binary' needs exactly 2 classes. Received: "
            f"{len(names)} classes {names}"
        )
    if not paths:
        allowed = f" Allowed formats: {formats}" if formats else ""
        raise ValueError(
            f"{caller}: no {kind} files found in directory {str(directory)!r}.{allowed}"
        )
    if verbose:
        if labels == "inferred":
            print(f"Found {len(paths)} files belonging to {len(names)} classes.")
        else:
            print(f"Found {len(paths)} files.")
    pairs = list(zip(paths, ids if ids is not None else [None] * len(paths)))
    train, val = split(pairs, validation_split, subset)
    wanted = {"training": [train], "validation": [val], "both": [train, val], None: [train]}
    outputs = []
    for part in wanted[subset]:
        if verbose and subset is not None:
            print(f"Using {len(part)} files for {'training' if part is train else 'validation'}.")
        outputs.append(
            _part_dataset(
                part, label_mode, names, batch_size, shuffle, seed, read, sample_spec, wrap
            )
        )
    return outputs if subset == "both" else outputs[0]


def _part_dataset(
    part: list[tuple[str, Any]],
    label_mode: str | None,
    names: list[str],
    batch_size: int | None,
    shuffle: bool,
    seed: int | None,
    read: Callable[[str], Any],
    sample_spec: PartSpec,
    wrap: Callable[[SampleBatches], Any] | None,
) -> Any:
    paths = [p for p, _ in part]
    specs = [sample_spec]
    encoded = None
    if label_mode is not None:
        ids = np.asarray([i for _, i in part], dtype="int64")
        encoded = encode_labels(ids, label_mode, len(names))
        specs.append(label_spec(label_mode, len(names)))

    def load(i: int) -> tuple[Any, ...]:
        sample = read(paths[i])
        return (sample,) if encoded is None else (sample, encoded[i])

    batches = SampleBatches(len(paths), load, specs, batch_size, shuffle, seed)
    output = wrap(batches) if wrap is not None else to_output(batches)
    output.class_names = names
    output.file_paths = paths
    return output
