"""What imdb and reuters share: shifting word indices, cutting long sequences, and
keeping the `num_words` most frequent words."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from lamina.datasets import _sources


def shift(sequences: Any, start_char: int | None, index_from: int) -> list[list[int]]:
    """Indices moved up by `index_from`, with `start_char` in front when given."""
    head = [] if start_char is None else [start_char]
    return [head + [int(w) + index_from for w in seq] for seq in sequences]


def drop_long(maxlen: int | None, xs: list[list[int]], labels: Any) -> tuple[list[Any], Any]:
    """Keep only the sequences shorter than `maxlen` (Keras 3's rule)."""
    if not maxlen:
        return xs, labels
    kept = [i for i, x in enumerate(xs) if len(x) < maxlen]
    return [xs[i] for i in kept], np.asarray(labels)[kept]


def limit_words(
    xs: list[list[int]], num_words: int | None, skip_top: int, oov_char: int | None
) -> list[list[int]]:
    """Words outside ``[skip_top, num_words)`` become `oov_char` (or are dropped)."""
    if not num_words:
        num_words = max(max(x) for x in xs if x)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def as_objects(xs: list[list[int]]) -> np.ndarray[Any, Any]:
    """A 1-D object array of lists (ragged sequences), as Keras 3 returns them."""
    out = np.empty(len(xs), dtype=object)
    out[:] = xs
    return out


def shuffled(x: Any, y: Any, rng: np.random.RandomState) -> tuple[Any, Any]:
    order = np.arange(len(x))
    rng.shuffle(order)
    return x[order], y[order]


def word_index(path: str, source_name: str) -> dict[str, int]:
    with open(_sources.fetch(path, source_name), encoding="utf-8") as f:
        index = json.load(f)
    if not isinstance(index, dict):
        raise ValueError(f"{source_name} must hold a JSON object of word -> index.")
    return index
