"""`StringLookup`: strings to integer indices (or back) through a vocabulary."""

from __future__ import annotations

from typing import Any

from lamina.layers.preprocessing.index_lookup import IndexLookup


class StringLookup(IndexLookup):
    """Map strings to indices: mask token (if any) 0, OOV indices next, then the vocabulary.

    Inputs are NumPy string/object arrays, Python lists of strings, or (on TensorFlow)
    tf.string tensors; outputs are the backend's tensors (NumPy object arrays of strings
    with ``invert=True``).

    Args:
        max_tokens: the largest vocabulary `adapt` may learn, special tokens included.
        num_oov_indices: how many OOV indices; an OOV string goes to OOV index
            ``Fingerprint64(string) % num_oov_indices`` (0 makes OOV strings an error).
        mask_token: a string meaning "padding", or None.
        oov_token: the string `invert` returns for OOV indices.
        vocabulary: a list or array of strings, or the path of a one-term-a-line file.
        idf_weights: one weight per term (``"tf_idf"`` mode only).
        encoding: the text encoding of byte strings (only ``"utf-8"``).
        invert: map indices back to strings.
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"`` or
            ``"tf_idf"``.
        pad_to_max_tokens: encode into `max_tokens` columns whatever the vocabulary size.
        sparse: only ``False`` is supported.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.StringLookup(vocabulary=["a", "b"])([["a", "c"], ["b", "a"]])
        # [[1, 0], [2, 1]]
    """

    _is_string = True

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: str | None = None,
        oov_token: str = "[UNK]",
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        pad_to_max_tokens: bool = False,
        sparse: bool = False,
        encoding: str = "utf-8",
        **kwargs: Any,
    ) -> None:
        if encoding.lower().replace("_", "-") != "utf-8":
            raise ValueError(
                "StringLookup: argument `encoding` must be 'utf-8'. "
                f"Received: encoding={encoding!r}"
            )
        kwargs.pop("vocabulary_dtype", None)
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=mask_token,
            oov_token=oov_token,
            vocabulary_dtype="string",
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            sparse=sparse,
            **kwargs,
        )
        self.encoding = "utf-8"

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("vocabulary_dtype")
        config["encoding"] = self.encoding
        return config
