"""IMDB: 50,000 movie reviews as word-index sequences, labelled by sentiment."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.datasets import _sequences, _sources
from lamina.datasets._safe_pickle import load_npz


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Load the IMDB reviews (downloaded once into the cache).

    Words are indexed by frequency (1 the most frequent), moved up by `index_from`.

    Args:
        path: the file's name in the cache.
        num_words: keep the `num_words` most frequent words; others become `oov_char`.
        skip_top: the most frequent words to treat as out of vocabulary too.
        maxlen: drop the sequences of `maxlen` words or more.
        seed: the seed of the shuffle of each split.
        start_char: the index that starts every sequence (None: none).
        oov_char: the index of the words cut out (None: they are dropped).
        index_from: the index of the most frequent word.
        **kwargs: none accepted (Keras 3's old `nb_words` is refused by name).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: object arrays of 25,000 lists of ints
        each, and int labels (1 positive, 0 negative).
    """
    if kwargs:
        raise TypeError(f"imdb.load_data: unrecognized keyword arguments: {sorted(kwargs)}")
    arrays = load_npz(_sources.fetch(path, "imdb.npz"))
    rng = np.random.RandomState(seed)
    x_train, labels_train = _sequences.shuffled(arrays["x_train"], arrays["y_train"], rng)
    x_test, labels_test = _sequences.shuffled(arrays["x_test"], arrays["y_test"], rng)
    train = _sequences.shift(x_train, start_char, index_from)
    test = _sequences.shift(x_test, start_char, index_from)
    train, labels_train = _sequences.drop_long(maxlen, train, labels_train)
    test, labels_test = _sequences.drop_long(maxlen, test, labels_test)
    if maxlen and (not train or not test):
        raise ValueError(
            f"imdb.load_data: no sequence is shorter than maxlen={maxlen}. Increase `maxlen`."
        )
    xs = _sequences.limit_words(train + test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    cut = len(train)
    return (
        (_sequences.as_objects(xs[:cut]), labels[:cut]),
        (_sequences.as_objects(xs[cut:]), labels[cut:]),
    )


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """The word -> index dictionary of the IMDB data (before `index_from` is added).

    Args:
        path: the file's name in the cache.
    """
    return _sequences.word_index(path, "imdb_word_index.json")
