"""Turn the `data` given to a preprocessing layer's `adapt` into NumPy batches.

Text layers adapt on strings, so this accepts NumPy string/object arrays, Python lists
of strings or numbers, backend tensors (tf.string tensors included), tf.data Datasets and
any other iterable of batches.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from lamina import ops


def to_numpy(x: Any) -> np.ndarray[Any, Any]:
    """`x` as a NumPy array; strings become a NumPy object array of Python `str`."""
    if isinstance(x, np.ndarray):
        array = x
    elif isinstance(x, (list, tuple, str, bytes, int, float)):
        array = np.asarray(x, dtype=object if _has_text(x) else None)
    elif hasattr(x, "numpy") and getattr(getattr(x, "dtype", None), "name", "") == "string":
        array = np.asarray(x.numpy())
    else:
        array = np.asarray(ops.convert_to_numpy(x))
    if array.dtype.kind in ("U", "S", "O"):
        return _decode(array)
    return array


def _has_text(x: Any) -> bool:
    if isinstance(x, (str, bytes)):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_text(v) for v in x)
    return False


def _decode(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    flat = [v.decode("utf-8") if isinstance(v, bytes) else v for v in array.reshape(-1)]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(array.shape)


def holds_text(x: Any) -> bool:
    """Whether a layer input holds strings (then it must not become a backend tensor)."""
    if isinstance(x, (str, bytes)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in ("U", "S", "O")
    if isinstance(x, (list, tuple)):
        return any(holds_text(v) for v in x)
    return getattr(getattr(x, "dtype", None), "name", "") == "string"


def batches(layer: str, data: Any, steps: int | None = None) -> Iterator[np.ndarray[Any, Any]]:
    """Yield `data` as NumPy batches: one array or tensor is a single batch."""
    if (
        isinstance(data, (np.ndarray, str, bytes))
        or ops.is_tensor(data)
        or (hasattr(data, "shape") and hasattr(data, "dtype") and not hasattr(data, "element_spec"))
    ):
        chunks: Iterable[Any] = [data]
    elif isinstance(data, (list, tuple)) and not (
        data and all(isinstance(v, (np.ndarray, list, tuple)) or ops.is_tensor(v) for v in data)
    ):
        chunks = [data]
    elif hasattr(data, "as_numpy_iterator"):
        chunks = data.as_numpy_iterator()
    elif isinstance(data, Iterable):
        chunks = data
    else:
        raise ValueError(
            f"{layer}.adapt: argument `data` must be an array, a tensor, a list, a tf.data "
            f"Dataset or an iterable of batches. Received: data of type {type(data).__name__}"
        )
    for step, chunk in enumerate(chunks):
        if steps is not None and step >= steps:
            return
        if isinstance(chunk, tuple) and len(chunk) in (1, 2, 3) and not _has_text(chunk):
            chunk = chunk[0]
        yield to_numpy(chunk)
