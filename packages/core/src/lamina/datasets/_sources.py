"""Where the dataset files come from, their hashes, and the helpers the loaders share.

The URLs are module constants so that tests (and mirrors) can point them elsewhere, e.g.
at ``file://`` folders of small generated files.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.utils.file_utils import get_file

# Keras 3's origins: its dataset bucket, and the CIFAR pages of the University of Toronto.
KERAS_DATASETS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
CIFAR_URL = "https://www.cs.toronto.edu/~kriz/"

# The sha256 (or md5) Keras 3 checks each download against; None: not checked.
FILE_HASHES: dict[str, str | None] = {
    "mnist.npz": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
    "california_housing.npz": "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
    "cifar-10-python.tar.gz": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    "cifar-100-python.tar.gz": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
    "train-labels-idx1-ubyte.gz": None,
    "train-images-idx3-ubyte.gz": None,
    "t10k-labels-idx1-ubyte.gz": None,
    "t10k-images-idx3-ubyte.gz": None,
}


def fetch(fname: str, source_name: str, base: str | None = None, **kwargs: Any) -> str:
    """`get_file` of `source_name` under `base` (default: Keras' bucket), cached as `fname`."""
    origin = (KERAS_DATASETS_URL if base is None else base) + source_name
    return get_file(fname, origin=origin, file_hash=FILE_HASHES.get(source_name), **kwargs)


def check_test_split(test_split: Any) -> float:
    if (
        isinstance(test_split, bool)
        or not isinstance(test_split, (int, float))
        or not (0 <= test_split < 1)
    ):
        raise ValueError(
            f"Argument `test_split` must be a float in [0, 1). Received: test_split={test_split!r}"
        )
    return float(test_split)


def shuffled_split(
    x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], test_split: float, seed: int
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Shuffle with ``RandomState(seed)`` and keep the first ``1 - test_split`` to train."""
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
