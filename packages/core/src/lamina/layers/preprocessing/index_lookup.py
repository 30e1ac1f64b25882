"""`IndexLookup`: the vocabulary machinery shared by `StringLookup` and `IntegerLookup`.

Index layout (Keras 3's): in ``"int"`` mode the mask token (when set) is index 0, then
`num_oov_indices` OOV indices, then the vocabulary. In the other modes the mask token has
no index and its occurrences are dropped. The vocabulary (and the idf weights) are kept
in the layer's config, so a saved model carries them.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._adapt_data import batches, holds_text, to_numpy
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.category_encoding import encode_categories, encoded_shape
from lamina.layers.preprocessing.farmhash import fingerprint64
from lamina.ops.symbolic import SymbolicTensor
from lamina.saving.serialization import in_safe_mode

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def index_dtype() -> str:
    """int64 (Keras 3's index dtype) where the backend has it; int32 on JAX without x64."""
    from lamina.ops.dispatch import backend

    return str(backend().runtime.iteration_dtype())


class IndexLookup(TFGraphCallMixin, Layer):
    """Map tokens to indices (or back, with `invert`) through a fixed or adapted vocabulary.

    Subclasses set how tokens are compared (`_is_string`) and their defaults.
    """

    _is_string = True

    def __init__(
        self,
        max_tokens: int | None,
        num_oov_indices: int,
        mask_token: Any,
        oov_token: Any,
        vocabulary_dtype: str,
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in _MODES:
            raise ValueError(
                f"{name}: argument `output_mode` must be one of {_MODES}. "
                f"Received: output_mode={output_mode!r}"
            )
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(
                f"{name}: argument `max_tokens` must be None or an integer > 1. "
                f"Received: max_tokens={max_tokens!r}"
            )
        if isinstance(num_oov_indices, bool) or num_oov_indices < 0:
            raise ValueError(
                f"{name}: argument `num_oov_indices` must be an integer >= 0. "
                f"Received: num_oov_indices={num_oov_indices!r}"
            )
        if invert and output_mode != "int":
            raise ValueError(
                f"{name}: argument `invert=True` needs output_mode='int'. "
                f"Received: output_mode={output_mode!r}"
            )
        if sparse:
            raise ValueError(
                f"{name}: argument `sparse` must be False (no sparse outputs). "
                f"Received: sparse={sparse!r}"
            )
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(
                f"{name}: argument `pad_to_max_tokens=True` needs `max_tokens`. "
                f"Received: max_tokens={max_tokens!r}"
            )
        self.max_tokens = max_tokens
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.vocabulary_dtype = vocabulary_dtype
        self.invert = bool(invert)
        # Ids back to strings is a host lookup, even on TensorFlow.
        self._host_only = self.invert and self._is_string
        self.output_mode = output_mode
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.sparse = False
        self.supports_masking = mask_token is not None and output_mode == "int"
        self._tokens: list[Any] = []
        self._idf: np.ndarray[Any, Any] | None = None
        self._has_input_vocabulary = False
        if isinstance(vocabulary, str):
            vocabulary = self._read_vocabulary_file(vocabulary)
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif idf_weights is not None:
            raise ValueError(
                f"{name}: argument `idf_weights` needs `vocabulary` as well. "
                f"Received: idf_weights of length {len(idf_weights)}"
            )
        self.built = True

    # -- vocabulary ------------------------------------------------------------------

    def _read_vocabulary_file(self, path: str) -> list[Any]:
        with open(path, encoding="utf-8") as handle:
            lines = [line.rstrip("\n") for line in handle]
        return [self._token(line) for line in lines if line]

    def _token(self, value: Any) -> Any:
        if self._is_string:
            return value.decode("utf-8") if isinstance(value, bytes) else str(value)
        return int(value)

    @property
    def _oov_start(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    @property
    def _token_start(self) -> int:
        return self._oov_start + self.num_oov_indices

    def vocabulary_size(self) -> int:
        """The number of indices, special tokens included."""
        return self._token_start + len(self._tokens)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        """The tokens in index order (with the mask and OOV tokens first by default)."""
        if not include_special_tokens:
            return list(self._tokens)
        specials = [self.mask_token] * self._oov_start + [self.oov_token] * self.num_oov_indices
        return specials + list(self._tokens)

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Replace the vocabulary (a leading run of the special tokens is skipped)."""
        name = type(self).__name__
        tokens = [self._token(t) for t in to_numpy(vocabulary).reshape(-1).tolist()]
        if not tokens:
            raise ValueError(f"{name}: argument `vocabulary` is empty.")
        specials = self.get_vocabulary()[: self._token_start]
        if specials and tokens[: len(specials)] == specials:
            tokens = tokens[len(specials) :]
        repeated = sorted({t for t, n in collections.Counter(tokens).items() if n > 1}, key=str)
        if repeated:
            raise ValueError(
                f"{name}: argument `vocabulary` repeats the terms {repeated}; each term "
                "must appear once."
            )
        for special, what in ((self.mask_token, "mask_token"), (self.oov_token, "oov_token")):
            if (
                special is not None
                and special in tokens
                and (what == "mask_token" or self.num_oov_indices > 0)
            ):
                raise ValueError(
                    f"{name}: argument `vocabulary` holds the {what} {special!r} among its "
                    "terms; special tokens may only come first, in index order."
                )
        if self.max_tokens is not None and self._token_start + len(tokens) > self.max_tokens:
            raise ValueError(
                f"{name}: the vocabulary has {self._token_start + len(tokens)} entries with "
                f"special tokens, more than max_tokens={self.max_tokens}."
            )
        idf = None
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(
                    f"{name}: output_mode='tf_idf' needs argument `idf_weights` with the "
                    "vocabulary. Received: idf_weights=None"
                )
            idf = np.asarray(to_numpy(idf_weights), "float64").reshape(-1)
            if idf.size == len(tokens) + self._token_start and idf.size != len(tokens):
                idf = idf[self._token_start :]
            if idf.size != len(tokens):
                raise ValueError(
                    f"{name}: argument `idf_weights` must have one weight per vocabulary "
                    f"term ({len(tokens)}). Received: {idf.size} weights"
                )
        elif idf_weights is not None:
            raise ValueError(
                f"{name}: argument `idf_weights` is only used with output_mode='tf_idf'. "
                f"Received: output_mode={self.output_mode!r}"
            )
        self._tokens = tokens
        self._idf = idf
        self._has_input_vocabulary = True

    def adapt(self, data: Any, steps: int | None = None) -> None:
        """Learn the vocabulary: the most frequent terms first (ties: the greater term
        first, as Keras 3 orders them), at most ``max_tokens`` entries in all; in
        ``"tf_idf"`` mode also ``idf = log(1 + documents / (1 + documents with term))``,
        each row of a batch being one document (each element of one rank-1 array)."""
        if self._has_input_vocabulary:
            raise ValueError(
                f"{type(self).__name__}.adapt: the layer was given a vocabulary (through "
                "`vocabulary` or `set_vocabulary`); make it without one to adapt it."
            )
        if isinstance(data, (list, tuple, np.ndarray)) or holds_text(data) or ops.is_tensor(data):
            whole = to_numpy(data)
            data = [whole.reshape(-1, 1) if whole.ndim <= 1 else whole]
        counts: collections.Counter[Any] = collections.Counter()
        doc_counts: collections.Counter[Any] = collections.Counter()
        documents = 0
        specials = {self.mask_token, self.oov_token} - {None}
        for batch in batches(type(self).__name__, data, steps):
            if batch.ndim == 0:
                batch = batch.reshape(1)
            rows = batch.reshape(batch.shape[0], -1) if batch.ndim > 1 else batch.reshape(1, -1)
            for row in rows:
                terms = [self._token(t) for t in row.tolist()]
                terms = [t for t in terms if t not in specials]
                counts.update(terms)
                doc_counts.update(set(terms))
                documents += 1
        if not counts:
            raise ValueError(f"{type(self).__name__}.adapt: argument `data` holds no terms.")
        ordered = sorted(counts, key=lambda t: (counts[t], t), reverse=True)
        if self.max_tokens is not None:
            ordered = ordered[: self.max_tokens - self._token_start]
        self._tokens = ordered
        self._idf = None
        if self.output_mode == "tf_idf":
            seen = np.array([doc_counts[t] for t in ordered], "float64")
            self._idf = np.log1p(documents / (1.0 + seen))

    # -- calling ---------------------------------------------------------------------

    def _convert_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """String inputs stay as they are (no backend tensor holds strings, except TF's)."""
        if args and holds_text(args[0]):
            return args
        return super()._convert_inputs(args)

    @property
    def _depth(self) -> int:
        if self.pad_to_max_tokens and self.max_tokens is not None:
            return self.max_tokens
        return self.vocabulary_size()

    def _ids(self, inputs: Any) -> Any:
        """Indices of `inputs` as an int tensor; -1 for dropped mask tokens."""
        if not self._tokens:
            raise ValueError(
                f"{type(self).__name__}: the layer has no vocabulary; pass `vocabulary` or "
                "call `adapt(data)` before calling it."
            )
        mask_id = 0 if self._oov_start else -1
        if self._is_string:
            table = {t: i + self._token_start for i, t in enumerate(self._tokens)}
            values = to_numpy(inputs)
            if self.mask_token is not None:
                table[self.mask_token] = mask_id
            flat = [table.get(self._token(t), -2) for t in values.reshape(-1).tolist()]
            ids = np.asarray(flat, "int64").reshape(values.shape)
            oov = ids == -2
            if oov.any():
                if self.num_oov_indices == 0:
                    raise ValueError(
                        f"{type(self).__name__}: num_oov_indices=0 and the inputs hold terms "
                        f"outside the vocabulary: {sorted(set(values[oov].tolist()))[:5]}"
                    )
                buckets = [
                    fingerprint64(self._token(t).encode("utf-8")) % self.num_oov_indices
                    for t in values[oov].tolist()
                ]
                ids[oov] = self._oov_start + np.asarray(buckets, "int64")
            return ops.convert_to_tensor(ids, "int32")
        x = ops.cast(inputs, "int32")
        keys = np.asarray(self._tokens, "int64")
        order = np.argsort(keys, kind="stable")
        sorted_keys = ops.convert_to_tensor(keys[order], "int32")
        positions = ops.convert_to_tensor(order + self._token_start, "int32")
        where = ops.clip(ops.searchsorted(sorted_keys, ops.reshape(x, (-1,))), 0, len(keys) - 1)
        where = ops.reshape(where, ops.shape(x))
        found = ops.equal(ops.take(sorted_keys, where), x)
        oov = self._oov_start + ops.mod(x, max(self.num_oov_indices, 1))
        if self.num_oov_indices == 0:
            oov = ops.full_like(x, -1)
        ids = ops.where(found, ops.take(positions, where), oov)
        if self.mask_token is not None:
            ids = ops.where(ops.equal(x, int(self.mask_token)), mask_id, ids)
        return ids

    def _invert(self, inputs: Any) -> Any:
        vocab = self.get_vocabulary()
        if self._is_string:
            ids = np.asarray(ops.convert_to_numpy(inputs)).astype("int64")
            size = len(vocab)
            out = np.empty(ids.shape, dtype=object)
            flat = [vocab[i] if 0 <= i < size else self.oov_token for i in ids.reshape(-1)]
            out.reshape(-1)[:] = flat
            return out
        table = ops.convert_to_tensor(np.asarray(vocab + [self.oov_token]), index_dtype())
        ids = ops.cast(inputs, "int32")
        ids = ops.where(
            ops.logical_and(ops.greater_equal(ids, 0), ops.less(ids, len(vocab))), ids, len(vocab)
        )
        return ops.take(table, ids)

    def call(self, inputs: Any) -> Any:
        if self.invert:
            return self._invert(inputs)
        ids = self._ids(inputs)
        if self.output_mode == "int":
            return ops.cast(ids, index_dtype())
        depth = self._depth
        ids = ops.where(ops.less(ids, 0), depth, ids)
        encoded = encode_categories(
            ids,
            self.output_mode if self.output_mode != "tf_idf" else "count",
            depth + 1,
            self.compute_dtype,
        )[..., :depth]
        if self.output_mode == "tf_idf":
            encoded = encoded * ops.convert_to_tensor(self._full_idf(), self.compute_dtype)
        return encoded

    def _full_idf(self) -> np.ndarray[Any, Any]:
        idf = self._idf if self._idf is not None else np.zeros(0)
        front = np.full(self._token_start, idf.mean() if idf.size else 0.0)
        full = np.concatenate([front, idf])
        return np.pad(full, (0, self._depth - full.size))

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.supports_masking or self.invert:
            return None
        if self._is_string:
            return ops.convert_to_tensor(to_numpy(inputs) != self.mask_token)
        return ops.not_equal(inputs, int(self.mask_token))

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == "int":
            return tuple(input_shape)
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        return encoded_shape(input_shape, mode, self._depth)

    def compute_output_spec(self, inputs: Any) -> Any:
        if self.invert:
            dtype = "string" if self._is_string else index_dtype()
        else:
            dtype = index_dtype() if self.output_mode == "int" else self.compute_dtype
        return SymbolicTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices,
                "mask_token": self.mask_token,
                "oov_token": self.oov_token,
                "vocabulary": self.get_vocabulary(False) if self._tokens else None,
                "idf_weights": None if self._idf is None else self._idf.tolist(),
                "invert": self.invert,
                "output_mode": self.output_mode,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "sparse": False,
                "vocabulary_dtype": self.vocabulary_dtype,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Any:
        """Refuses a vocabulary given as a file path in safe mode (loading must not read
        files a config names)."""
        vocabulary = config.get("vocabulary")
        if isinstance(vocabulary, str) and in_safe_mode():
            raise ValueError(
                f"{cls.__name__}: the config names a vocabulary file ({vocabulary!r}); "
                "loading it is refused in safe mode. Pass safe_mode=False to load it."
            )
        return cls(**config)
