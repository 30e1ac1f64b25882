"""`pad_sequences`: lists of variable-length sequences to one padded NumPy array."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

_SIDES = ("pre", "post")


def pad_sequences(
    sequences: Sequence[Any],
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray[Any, Any]:
    """Pad (or truncate) each sequence to the same length, for batching.

    Sequences longer than `maxlen` lose steps at the start (``truncating="pre"``) or at
    the end (``"post"``); shorter ones get `value` added before (``padding="pre"``) or after
    (``"post"``). The steps may be scalars or arrays (all of one shape).

    Args:
        sequences: a list of sequences (lists or arrays).
        maxlen: the output length; default: the longest sequence.
        dtype: the output dtype; ``"object"`` (or a string dtype) for strings.
        padding: ``"pre"`` or ``"post"``.
        truncating: ``"pre"`` or ``"post"``.
        value: the padding value.

    Returns:
        An array of shape ``(len(sequences), maxlen, *step_shape)``.

    Raises:
        ValueError: a sequence is not iterable, steps differ in shape, an argument is
            invalid, or a string `value` meets a non-string `dtype`.

    Example:
        >>> lamina.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2)  # [[2, 3], [0, 4]]
    """
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in _SIDES:
            raise ValueError(
                f"pad_sequences: argument `{name}` must be 'pre' or 'post'. "
                f"Received: {name}={side!r}"
            )
    if not isinstance(sequences, Iterable) or isinstance(sequences, (str, bytes)):
        raise ValueError(
            "pad_sequences: argument `sequences` must be a list of sequences. "
            f"Received: sequences={sequences!r}"
        )
    items = []
    for i, seq in enumerate(sequences):
        if not isinstance(seq, Iterable) or isinstance(seq, (str, bytes)):
            raise ValueError(
                "pad_sequences: every element of `sequences` must be a sequence. "
                f"Received: element {i} = {seq!r}"
            )
        items.append(list(seq))
    if maxlen is not None and (isinstance(maxlen, bool) or int(maxlen) != maxlen or maxlen < 0):
        raise ValueError(
            f"pad_sequences: argument `maxlen` must be a non-negative int or None. "
            f"Received: maxlen={maxlen!r}"
        )
    length = max((len(s) for s in items), default=0) if maxlen is None else int(maxlen)
    step_shape: tuple[int, ...] = ()
    for seq in items:
        if seq:
            step_shape = np.asarray(seq[0]).shape
            break
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.dtype(dtype) == np.dtype(object)
    if isinstance(value, str) and not is_text:
        raise ValueError(
            f"pad_sequences: a string `value` needs dtype 'object' or a string dtype. "
            f"Received: dtype={dtype!r}, value={value!r}"
        )
    out = np.full((len(items), length, *step_shape), value, dtype=dtype)
    for i, seq in enumerate(items):
        if not seq or length == 0:
            continue
        kept = seq[-length:] if truncating == "pre" else seq[:length]
        block = np.asarray(kept, dtype=dtype)
        if block.shape[1:] != step_shape:
            raise ValueError(
                f"pad_sequences: the steps of sequence {i} have shape {block.shape[1:]}, "
                f"expected {step_shape} like the first non-empty sequence."
            )
        if padding == "post":
            out[i, : len(block)] = block
        else:
            out[i, length - len(block) :] = block
    return out
