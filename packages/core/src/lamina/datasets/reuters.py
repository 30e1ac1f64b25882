"""Reuters: 11,228 newswires as word-index sequences, labelled over 46 topics."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.datasets import _sequences, _sources
from lamina.datasets._safe_pickle import load_npz

_LABELS = [
    "cocoa",
    "grain",
    "veg-oil",
    "earn",
    "acq",
    "wheat",
    "copper",
    "housing",
    "money-supply",
    "coffee",
    "sugar",
    "trade",
    "reserves",
    "ship",
    "cotton",
    "carcass",
    "crude",
    "nat-gas",
    "cpi",
    "money-fx",
    "interest",
    "gnp",
    "meal-feed",
    "alum",
    "oilseed",
    "gold",
    "tin",
    "strategic-metal",
    "livestock",
    "retail",
    "ipi",
    "iron-steel",
    "rubber",
    "heat",
    "jobs",
    "lei",
    "bop",
    "zinc",
    "orange",
    "pet-chem",
    "dlr",
    "gas",
    "silver",
    "wpi",
    "hog",
    "lead",
]


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load the Reuters newswires (downloaded once into the cache).

    Args:
        path: the file's name in the cache.
        num_words: keep the `num_words` most frequent words; others become `oov_char`.
        skip_top: the most frequent words to treat as out of vocabulary too.
        maxlen: drop the sequences of `maxlen` words or more.
        test_split: the fraction kept for testing (the end of the shuffled data).
        seed: the shuffling seed.
        start_char: the index that starts every sequence (None: none).
        oov_char: the index of the words cut out (None: they are dropped).
        index_from: the index of the most frequent word.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: object arrays of lists of ints, and the
        topic labels (0-45; `get_label_names` names them).
    """
    test_split = _sources.check_test_split(test_split)
    arrays = load_npz(_sources.fetch(path, "reuters.npz"))
    x, labels = _sequences.shuffled(arrays["x"], arrays["y"], np.random.RandomState(seed))
    xs = _sequences.shift(x, start_char, index_from)
    xs, labels = _sequences.drop_long(maxlen, xs, labels)
    xs = _sequences.limit_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (
        (_sequences.as_objects(xs[:cut]), np.array(labels[:cut])),
        (_sequences.as_objects(xs[cut:]), np.array(labels[cut:])),
    )


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """The word -> index dictionary of the Reuters data (before `index_from` is added).

    Args:
        path: the file's name in the cache.
    """
    return _sequences.word_index(path, "reuters_word_index.json")


def get_label_names() -> tuple[str, ...]:
    """The 46 topic names, in label order."""
    return tuple(_LABELS)
