"""Helpers shared by the data adapters: batch tuples, type checks, class weights, splits.

A batch always travels as a tuple ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``; these
helpers convert between that form and the loose forms users hand to `fit`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from lamina import tree

BATCH_FORMS = "`x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`"


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """Split one batch into ``(x, y, sample_weight)``, filling absent parts with None.

    Args:
        data: a batch: a bare `x`, or a tuple/list of 1 to 3 elements.

    Returns:
        The three parts; `y` and `sample_weight` are None when the batch lacks them.

    Raises:
        ValueError: `data` is a tuple/list of more than 3 elements.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple) or _is_namedtuple(data):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        f"Each batch must have the form {BATCH_FORMS}. Received a {type(data).__name__} "
        f"of {len(data)} elements: data={_describe(data)}"
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """Join batch parts into the shortest form that `unpack_x_y_sample_weight` reverses.

    Args:
        x: the inputs.
        y: the targets, or None.
        sample_weight: the sample weights, or None (ignored when `y` is None).

    Returns:
        `x` itself when it is neither a tuple nor a list and `y` is None, else a tuple.
    """
    if y is None:
        if isinstance(x, (tuple, list)) and not _is_namedtuple(x):
            return (x,)
        return x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def as_batch_tuple(data: Any) -> tuple[Any, ...]:
    """`data` as the tuple form ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    x, y, sw = unpack_x_y_sample_weight(data)
    if y is None and sw is None:
        return (x,)
    if sw is None:
        return (x, y)
    return (x, y, sw)


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _describe(data: Any) -> str:
    """A short description of a structure (types and shapes, not the values)."""

    def leaf(v: Any) -> str:
        shape = getattr(v, "shape", None)
        if shape is not None:
            return f"{type(v).__name__}(shape={tuple(shape)})"
        return type(v).__name__

    try:
        return str(tree.map_structure(leaf, data))
    except Exception:  # a description must never fail
        return type(data).__name__


# --- what kind of object is it --------------------------------------------------------------
def module_of(x: Any) -> str:
    """The module that defines the type of `x` ("" when unknown)."""
    return getattr(type(x), "__module__", "") or ""


def is_tf_dataset(x: Any) -> bool:
    """True for a `tf.data.Dataset` (imports TensorFlow only when `x` comes from it)."""
    if not module_of(x).startswith("tensorflow"):
        return False
    import tensorflow as tf

    return isinstance(x, tf.data.Dataset)


def is_torch_dataloader(x: Any) -> bool:
    """True for a `torch.utils.data.DataLoader` (imports torch only when `x` comes from it)."""
    if not module_of(x).startswith("torch"):
        return False
    from torch.utils.data import DataLoader

    return isinstance(x, DataLoader)


def is_backend_tensor(x: Any) -> bool:
    """True when `x` is a native tensor of the active backend."""
    if isinstance(x, np.ndarray):
        return False
    from lamina.ops.dispatch import backend

    try:
        return bool(backend().core.is_tensor(x))
    except Exception:  # no backend installed: nothing is a backend tensor
        return False


def is_array_like(x: Any) -> bool:
    """True for a NumPy array, any framework's tensor, or a pandas object."""
    if isinstance(x, np.ndarray):
        return True
    if isinstance(x, (str, bytes, dict, list, tuple)):
        return False
    module = module_of(x)
    if module.startswith(("pandas", "torch", "tensorflow", "jax", "jaxlib")):
        return hasattr(x, "shape")
    return (hasattr(x, "__array__") and hasattr(x, "shape")) or is_backend_tensor(x)


def to_numpy(x: Any) -> np.ndarray:
    """`x` (an array, tensor, pandas object or nested Python numbers) as a NumPy array."""
    if isinstance(x, np.ndarray):
        return x
    module = module_of(x)
    if module.startswith("pandas"):
        return np.asarray(x.to_numpy())
    if is_backend_tensor(x):
        from lamina.ops import convert_to_numpy

        return np.asarray(convert_to_numpy(x))
    if module.startswith("torch"):
        return np.asarray(x.detach().cpu().numpy())
    if module.startswith("tensorflow") and hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


def standardize_leaf(x: Any) -> Any:
    """A batch leaf as something the trainer can convert: backend tensors stay, the rest
    become NumPy arrays (None stays None)."""
    if x is None or isinstance(x, np.ndarray) or is_backend_tensor(x):
        return x
    if isinstance(x, (str, bytes)):
        return np.asarray(x)
    return to_numpy(x)


def is_plain_sequence(x: Any) -> bool:
    """True for a (nested) list/tuple of Python numbers or strings: one array, not a
    structure of several inputs."""
    if not isinstance(x, (list, tuple)) or not x or _is_namedtuple(x):
        return False
    for v in x:
        if isinstance(v, (list, tuple)):
            if not is_plain_sequence(v):
                return False
        elif not isinstance(v, (bool, int, float, complex, str, np.generic)):
            return False
    return True


def _standardize_structure(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _standardize_structure(v) for k, v in x.items()}
    if is_plain_sequence(x):
        return np.asarray(x)
    if isinstance(x, (list, tuple)) and not _is_namedtuple(x):
        items = [_standardize_structure(v) for v in x]
        return items if isinstance(x, list) else tuple(items)
    return standardize_leaf(x)


def standardize_batch(batch: Any) -> tuple[Any, ...]:
    """A batch as a tuple of nested NumPy arrays / backend tensors (lists of numbers become
    arrays)."""
    return tuple(_standardize_structure(p) for p in as_batch_tuple(batch))


# --- dtypes ---------------------------------------------------------------------------------
_LABEL_HINT = (
    " Encode labels as integer class indices first, for example with "
    "`classes, y = np.unique(y, return_inverse=True)`."
)
_INPUT_HINT = " Convert it with `.astype(...)`, or encode strings as numbers first."


def non_numeric_dtype(x: Any) -> str | None:
    """A description of the dtype of `x` when it is not numeric (strings, objects, dates);
    None for bool, int, float and complex data, and for values without a dtype."""
    from lamina.ops.dtypes import standardize_dtype

    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        kinds = {"U": "strings", "S": "bytes", "O": "Python objects", "M": "dates",
                 "m": "time spans"}
        if dtype.kind in "biufc":
            return None
        if dtype.kind in kinds:
            return f"{dtype} ({kinds[dtype.kind]})"
    try:
        name = standardize_dtype(dtype)  # bfloat16 and float8 (ml-dtypes), framework dtypes
    except ValueError:
        return str(dtype)
    return f"{name} (strings)" if name == "string" else None


def _leaves_with_paths(part: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(part, dict):
        for key, value in part.items():
            yield from _leaves_with_paths(value, f"{path}[{key!r}]")
    elif isinstance(part, (list, tuple)):
        for i, value in enumerate(part):
            yield from _leaves_with_paths(value, f"{path}[{i}]")
    elif part is not None:
        yield path, part


def _example(x: Any) -> str:
    try:
        first = np.asarray(x).reshape(-1)[:1]
    except Exception:  # a description must never fail
        return ""
    return f", such as {first.tolist()[0]!r:.40}" if first.size else ""


def check_batch_dtypes(batch: Any, takes_strings: Callable[[Any], bool]) -> None:
    """Refuse a batch whose `x`, `y` or `sample_weight` is not numeric, by name.

    A backend would fail on such data deep inside its own conversion or step, with an
    error that names neither the argument nor the fix; this check runs first (on the
    first batch of a loop, so once per `fit`/`evaluate`/`predict`).

    Args:
        batch: one batch, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.
        takes_strings: whether the model accepts a given non-numeric `x` leaf (a model
            with a string input does, on a backend that holds strings).

    Raises:
        TypeError: a part holds strings, Python objects or dates.
    """
    x, y, sample_weight = unpack_x_y_sample_weight(batch)
    for name, part in (("x", x), ("y", y), ("sample_weight", sample_weight)):
        for path, leaf in _leaves_with_paths(part, name):
            found = non_numeric_dtype(leaf)
            if found is None or (name == "x" and takes_strings(leaf)):
                continue
            hint = _INPUT_HINT if name == "x" else _LABEL_HINT if name == "y" else ""
            raise TypeError(
                f"Argument `{name}` must hold numbers (bool, int or float). "
                f"Received: {path} with dtype {found}{_example(leaf)}.{hint}"
            )


# --- class weights -------------------------------------------------------------------------
def _check_class_weight(class_weight: Any) -> dict[int, float]:
    if not isinstance(class_weight, dict):
        raise ValueError(
            "Argument `class_weight` must be a dict mapping class indices (int) to weights "
            f"(float). Received: class_weight={class_weight!r}"
        )
    out: dict[int, float] = {}
    for key, value in class_weight.items():
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or key < 0:
            raise ValueError(
                "Argument `class_weight` must have non-negative int keys (class indices). "
                f"Received: key {key!r} in class_weight={class_weight!r}"
            )
        try:
            out[int(key)] = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                "Argument `class_weight` must have numeric values. "
                f"Received: class_weight[{key!r}]={value!r}"
            ) from None
    return out


def class_weight_to_sample_weights(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    """One weight per sample, looked up from each sample's class.

    Args:
        y: the targets of one model output: class indices of shape ``(N,)`` or ``(N, 1)``,
            or one-hot / probabilities of shape ``(N, C)`` (the class is the argmax).
        class_weight: ``{class_index: weight}``; classes it lacks weigh 1.0.

    Returns:
        A float32 array of shape ``(N,)``.

    Raises:
        ValueError: `class_weight` is not a dict of int to number, or `y` is not a single
            array of rank 1 or 2.
    """
    weights = _check_class_weight(class_weight)
    if y is None or (isinstance(y, (dict, list, tuple)) and not _is_number_list(y)):
        raise ValueError(
            "Argument `class_weight` needs the targets of exactly one model output (a single "
            "array of class indices or one-hot rows); for several outputs pass "
            f"`sample_weight` instead. Received: y={_describe(y)}"
        )
    labels = to_numpy(y)
    if labels.ndim == 2 and labels.shape[1] > 1:
        classes = np.argmax(labels, axis=1)
    elif labels.ndim == 2 and labels.shape[1] == 1:
        classes = labels[:, 0]
    elif labels.ndim == 1:
        classes = labels
    else:
        raise ValueError(
            "Argument `class_weight` needs targets of shape (N,), (N, 1) or one-hot (N, C). "
            f"Received: y with shape {labels.shape}"
        )
    classes = np.asarray(classes)
    if classes.dtype.kind == "f" and (
        not np.all(np.isfinite(classes)) or np.any(classes != np.round(classes))
    ):
        raise ValueError(
            "Argument `class_weight` needs integer class labels in `y`. Received: y with "
            f"non-integer values such as {classes[classes != np.round(classes)][:3]}"
        )
    classes = classes.astype(np.int64)
    if classes.size and classes.min() < 0:
        raise ValueError(
            "Argument `class_weight` needs non-negative class labels in `y`. "
            f"Received: label {int(classes.min())}"
        )
    size = max([*weights.keys(), int(classes.max()) if classes.size else 0]) + 1
    table = np.ones((size,), dtype=np.float32)
    for key, value in weights.items():
        table[key] = value
    return table[classes]


def _is_number_list(y: Any) -> bool:
    return isinstance(y, list) and all(isinstance(v, (int, float, np.number)) for v in y)


# --- validation split ------------------------------------------------------------------------
def train_validation_split(
    arrays: tuple[Any, ...], validation_split: float
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Keep the first part of every array for training and the last part for validation.

    The split happens before any shuffling, so the validation samples are always the last
    ``validation_split`` fraction of the data as given.

    Args:
        arrays: a tuple such as ``(x, y, sample_weight)``; parts may be None or nested.
        validation_split: the fraction held out, in (0, 1).

    Returns:
        ``(train_arrays, validation_arrays)``, tuples shaped like `arrays`.

    Raises:
        ValueError: the fraction is out of range, a part is not array data (a dataset or a
            generator), or the split leaves one side empty.
    """
    if isinstance(validation_split, bool) or not isinstance(
        validation_split, (int, float, np.floating)
    ) or not 0.0 < float(validation_split) < 1.0:
        raise ValueError(
            "Argument `validation_split` must be a float in (0, 1). "
            f"Received: validation_split={validation_split!r}"
        )
    from lamina.trainers.data_adapters.array_data_adapter import to_array_structure

    names = ("x", "y", "sample_weight")
    converted: list[Any] = []
    for i, part in enumerate(arrays):
        name = names[i] if i < len(names) else f"arrays[{i}]"
        if part is None:
            converted.append(None)
            continue
        try:
            converted.append(to_array_structure(part, name))
        except (TypeError, ValueError) as e:
            raise ValueError(
                "Argument `validation_split` is only supported for array data (NumPy arrays, "
                "tensors, lists or dicts of them), not for datasets or generators; use "
                f"`validation_data` instead. Received: {name} of type {type(part).__name__} "
                f"({e})"
            ) from None
    leaves = [leaf for part in converted if part is not None for leaf in tree.flatten(part)]
    if not leaves:
        raise ValueError("Argument `validation_split` needs data to split. Received: x=None")
    num_samples = int(leaves[0].shape[0])
    split_at = math.floor(num_samples * (1.0 - float(validation_split)))
    if split_at == 0 or split_at == num_samples:
        raise ValueError(
            f"Argument `validation_split`={validation_split!r} leaves no samples for "
            f"{'training' if split_at == 0 else 'validation'} out of {num_samples} samples."
        )

    def part_slice(start: int, stop: int | None) -> tuple[Any, ...]:
        return tuple(
            None if p is None else tree.map_structure(lambda a: a[start:stop], p)
            for p in converted
        )

    return part_slice(0, split_at), part_slice(split_at, None)
