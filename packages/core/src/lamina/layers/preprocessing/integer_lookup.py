"""`IntegerLookup`: integer ids to contiguous indices (or back) through a vocabulary."""

from __future__ import annotations

from typing import Any

from lamina.layers.preprocessing.index_lookup import IndexLookup


class IntegerLookup(IndexLookup):
    """Map integers to indices: mask token (if any) 0, OOV indices next, then the
    vocabulary. Lookups are tensor ops, so the layer runs inside compiled steps.

    Args:
        max_tokens: the largest vocabulary `adapt` may learn, special tokens included.
        num_oov_indices: how many OOV indices; an OOV value ``v`` goes to OOV index
            ``v mod num_oov_indices`` (with 0, OOV values give -1).
        mask_token: an integer meaning "padding", or None.
        oov_token: the integer `invert` returns for OOV indices.
        vocabulary: a list or array of integers, or the path of a one-term-a-line file.
        vocabulary_dtype: ``"int64"`` (default) or ``"int32"``.
        idf_weights: one weight per term (``"tf_idf"`` mode only).
        invert: map indices back to the integers.
        output_mode: ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"`` or
            ``"tf_idf"``.
        pad_to_max_tokens: encode into `max_tokens` columns whatever the vocabulary size.
        sparse: only ``False`` is supported.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.IntegerLookup(vocabulary=[12, 36])(np.array([[12, 7], [36, 12]]))
        # [[1, 0], [2, 1]]
    """

    _is_string = False

    def __init__(
        self,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: int | None = None,
        oov_token: int = -1,
        vocabulary: Any = None,
        vocabulary_dtype: str = "int64",
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        **kwargs: Any,
    ) -> None:
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError(
                "IntegerLookup: argument `vocabulary_dtype` must be 'int32' or 'int64'. "
                f"Received: vocabulary_dtype={vocabulary_dtype!r}"
            )
        super().__init__(
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
            mask_token=None if mask_token is None else int(mask_token),
            oov_token=int(oov_token),
            vocabulary_dtype=vocabulary_dtype,
            vocabulary=vocabulary,
            idf_weights=idf_weights,
            invert=invert,
            output_mode=output_mode,
            pad_to_max_tokens=pad_to_max_tokens,
            sparse=sparse,
            **kwargs,
        )
