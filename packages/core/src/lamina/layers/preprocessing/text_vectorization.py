"""`TextVectorization`: raw strings to token ids, multi-hot/count or tf-idf vectors.

Standardizing, splitting and n-grams run on the host in Python (strings have no backend
tensors outside TensorFlow); the vocabulary is a `StringLookup` whose vocabulary and idf
weights travel in this layer's config.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import batches, holds_text, to_numpy
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.index_lookup import index_dtype
from lamina.layers.preprocessing.string_lookup import StringLookup
from lamina.ops.symbolic import SymbolicTensor
from lamina.saving.serialization import in_safe_mode

_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\\\]^_`{|}~']")
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")
_MODES = ("int", "multi_hot", "count", "tf_idf")


def _check_choice(arg: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value is None or callable(value) or value in allowed:
        return
    raise ValueError(
        f"TextVectorization: argument `{arg}` must be None, a callable or one of {allowed}. "
        f"Received: {arg}={value!r}"
    )


def _ngram_sizes(ngrams: Any) -> tuple[int, ...] | None:
    if ngrams is None:
        return None
    if isinstance(ngrams, int) and not isinstance(ngrams, bool) and ngrams > 0:
        return tuple(range(1, ngrams + 1))
    if (
        isinstance(ngrams, (tuple, list))
        and ngrams
        and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in ngrams)
    ):
        return tuple(int(n) for n in ngrams)
    raise ValueError(
        "TextVectorization: argument `ngrams` must be None, an integer > 0 or a tuple of "
        f"integers > 0. Received: ngrams={ngrams!r}"
    )


class TextVectorization(TFGraphCallMixin, Layer):
    """Turn strings into token indices or token-count vectors through a vocabulary.

    Each string is standardized, split into tokens, optionally extended with n-grams
    (joined by a space), then looked up: index 0 is padding (``""``), 1 the OOV token
    ``"[UNK]"`` in ``"int"`` mode; the other modes have ``"[UNK]"`` at 0.

    Args:
        max_tokens: the largest vocabulary `adapt` may learn, special tokens included.
        standardize: ``"lower_and_strip_punctuation"`` (default), ``"lower"``,
            ``"strip_punctuation"``, None, or a callable mapping a NumPy object array of
            strings to one of the same shape.
        split: ``"whitespace"`` (default), ``"character"``, None (inputs are already
            tokens, one per element of the last axis) or a callable mapping a string to
            its list of tokens.
        ngrams: None, an integer ``n`` (all n-grams up to ``n``) or a tuple of sizes.
        output_mode: ``"int"``, ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        output_sequence_length: in ``"int"`` mode, pad or cut every sequence to this
            length (default: the batch's longest sequence).
        pad_to_max_tokens: encode into `max_tokens` columns whatever the vocabulary size.
        vocabulary: a list of strings or the path of a one-term-a-line file.
        idf_weights: one weight per term (``"tf_idf"`` only).
        sparse: only ``False`` is supported.
        ragged: only ``False`` is supported (sequences are padded).
        encoding: the text encoding of byte strings (only ``"utf-8"``).
        **kwargs: base `Layer` arguments.

    Example:
        >>> layer = lamina.layers.TextVectorization(output_sequence_length=4)
        >>> layer.adapt(["The cat sat.", "the dog"])
        >>> layer(["the cat, the dog!"])  # [[2, 5, 2, 4]] ("the" is 2, "cat" 5, "dog" 4)
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        standardize: str | Callable[..., Any] | None = "lower_and_strip_punctuation",
        split: str | Callable[..., Any] | None = "whitespace",
        ngrams: Any = None,
        output_mode: str = "int",
        output_sequence_length: int | None = None,
        pad_to_max_tokens: bool = False,
        vocabulary: Any = None,
        idf_weights: Any = None,
        sparse: bool = False,
        ragged: bool = False,
        encoding: str = "utf-8",
        **kwargs: Any,
    ) -> None:
        kwargs.pop("vocabulary_size", None)
        super().__init__(**kwargs)
        _check_choice("standardize", standardize, _STANDARDIZE)
        _check_choice("split", split, _SPLIT)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in _MODES:
            raise ValueError(
                f"TextVectorization: argument `output_mode` must be one of {_MODES}. "
                f"Received: output_mode={output_mode!r}"
            )
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(
                "TextVectorization: argument `output_sequence_length` needs "
                f"output_mode='int'. Received: output_mode={output_mode!r}"
            )
        if output_sequence_length is not None and output_sequence_length < 1:
            raise ValueError(
                "TextVectorization: argument `output_sequence_length` must be None or an "
                f"integer > 0. Received: output_sequence_length={output_sequence_length!r}"
            )
        if sparse or ragged:
            raise ValueError(
                "TextVectorization: arguments `sparse` and `ragged` must be False (outputs "
                f"are dense and padded). Received: sparse={sparse!r}, ragged={ragged!r}"
            )
        self.max_tokens = max_tokens
        self.standardize = standardize
        self.split = split
        self.ngrams = ngrams
        self._ngram_sizes = _ngram_sizes(ngrams)
        self.output_mode = output_mode
        self.output_sequence_length = output_sequence_length
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.sparse = False
        self.ragged = False
        self.encoding = encoding
        self._lookup = StringLookup(
            max_tokens=max_tokens,
            num_oov_indices=1,
            mask_token="",
            oov_token="[UNK]",
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            encoding=encoding,
            name=f"{self.name}_lookup",
        )
        self.built = True

    # -- text processing -------------------------------------------------------------

    def _standardized(self, values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        if self.standardize is None:
            return values
        if callable(self.standardize):
            return to_numpy(self.standardize(values))
        lower = self.standardize in ("lower", "lower_and_strip_punctuation")
        strip = self.standardize in ("strip_punctuation", "lower_and_strip_punctuation")
        out = np.empty(values.shape, dtype=object)
        flat = out.reshape(-1)
        for i, text in enumerate(values.reshape(-1).tolist()):
            text = text.lower() if lower else text
            flat[i] = _PUNCTUATION.sub("", text) if strip else text
        return out

    def _with_ngrams(self, tokens: list[str]) -> list[str]:
        if self._ngram_sizes is None:
            return tokens
        out: list[str] = []
        for n in self._ngram_sizes:
            out.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        return out

    def _token_lists(self, inputs: Any) -> list[list[str]]:
        """Each input string (or row of tokens, with ``split=None``) as its token list."""
        values = to_numpy(inputs)
        if values.ndim == 0:
            values = values.reshape(1)
        if self.split is not None and values.ndim == 2 and values.shape[-1] == 1:
            values = values[:, 0]
        values = self._standardized(values)
        if self.split is None:
            rows = values.reshape(values.shape[0], -1) if values.ndim > 1 else values[:, None]
            return [self._with_ngrams([str(t) for t in row]) for row in rows.tolist()]
        if values.ndim != 1:
            raise ValueError(
                "TextVectorization: inputs must be a batch of strings, shape (batch,) or "
                f"(batch, 1). Received: shape {values.shape}"
            )
        texts = [str(t) for t in values.tolist()]
        if callable(self.split):
            tokens = [[str(t) for t in to_numpy(self.split(t)).reshape(-1)] for t in texts]
        elif self.split == "character":
            tokens = [list(t) for t in texts]
        else:
            tokens = [t.split() for t in texts]
        return [self._with_ngrams(t) for t in tokens]

    @staticmethod
    def _padded(lists: list[list[str]], length: int) -> np.ndarray[Any, Any]:
        out = np.full((len(lists), length), "", dtype=object)
        for i, tokens in enumerate(lists):
            row = tokens[:length]
            out[i, : len(row)] = row
        return out

    # -- vocabulary ------------------------------------------------------------------

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Learn the vocabulary (and idf weights) from strings; each string is a document.

        Args:
            data: strings (an array, list or tensor), a tf.data Dataset or an iterable
                of batches of strings.
            batch_size: accepted for Keras compatibility; the result does not depend on it.
            steps: how many batches to read (default: all).
        """
        if isinstance(data, (list, tuple, np.ndarray, str, bytes)) or holds_text(data):
            data = [data]
        documents: list[list[str]] = []
        for batch in batches("TextVectorization", data, steps):
            documents.extend(self._token_lists(batch))
        width = max((len(d) for d in documents), default=0)
        self._lookup.adapt(self._padded(documents, max(width, 1)))

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[str]:
        """The tokens in index order (padding and OOV first by default)."""
        return self._lookup.get_vocabulary(include_special_tokens)

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Replace the vocabulary (and, in ``"tf_idf"`` mode, the idf weights)."""
        self._lookup.set_vocabulary(vocabulary, idf_weights)

    def vocabulary_size(self) -> int:
        """The number of indices, special tokens included."""
        return self._lookup.vocabulary_size()

    # -- calling ---------------------------------------------------------------------

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """String inputs stay as they are (no backend tensor holds strings, except TF's)."""
        if args and holds_text(args[0]):
            return args
        return super()._convert_inputs(args)

    def call(self, inputs: Any) -> Any:
        lists = self._token_lists(inputs)
        if self.output_mode == "int":
            length = self.output_sequence_length or max((len(t) for t in lists), default=0)
            if length == 0:
                return ops.zeros((len(lists), 0), dtype=index_dtype())
            return self._lookup(self._padded(lists, length))
        width = max((len(t) for t in lists), default=0)
        return self._lookup(self._padded(lists, max(width, 1)))

    def compute_output_shape(self, input_shape: Any) -> Any:
        batch = input_shape[0] if len(input_shape) else None
        if self.output_mode == "int":
            return (batch, self.output_sequence_length)
        if self.pad_to_max_tokens and self.max_tokens is not None:
            return (batch, self.max_tokens)
        return (batch, self.vocabulary_size())

    def compute_output_spec(self, inputs: Any) -> Any:
        dtype = index_dtype() if self.output_mode == "int" else self.compute_dtype
        return SymbolicTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        lookup = self._lookup.get_config()
        config.update(
            {
                "max_tokens": self.max_tokens,
                "standardize": self.standardize,
                "split": self.split,
                "ngrams": self.ngrams,
                "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "sparse": False,
                "ragged": False,
                "vocabulary": lookup["vocabulary"],
                "idf_weights": lookup["idf_weights"],
                "encoding": self.encoding,
                "vocabulary_size": self.vocabulary_size(),
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """Refuses a vocabulary file path in safe mode, as `StringLookup` does."""
        if isinstance(config.get("vocabulary"), str) and in_safe_mode():
            raise ValueError(
                f"TextVectorization: the config names a vocabulary file "
                f"({config['vocabulary']!r}); loading it is refused in safe mode. Pass "
                "safe_mode=False to load it."
            )
        return cls(**config)
