"""`lamina.utils.pad_sequences`: padding and truncating sides, lengths, dtypes, strings,
multi-dimensional steps and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.utils import pad_sequences

SEQS = [[1], [2, 3], [4, 5, 6]]


def test_defaults_pad_and_truncate_at_the_start():
    out = pad_sequences(SEQS)
    np.testing.assert_array_equal(out, [[0, 0, 1], [0, 2, 3], [4, 5, 6]])
    assert out.dtype == np.int32


@pytest.mark.parametrize(
    "padding,truncating,want",
    [
        ("pre", "pre", [[0, 1], [2, 3], [5, 6]]),
        ("post", "pre", [[1, 0], [2, 3], [5, 6]]),
        ("pre", "post", [[0, 1], [2, 3], [4, 5]]),
        ("post", "post", [[1, 0], [2, 3], [4, 5]]),
    ],
)
def test_sides(padding, truncating, want):
    out = pad_sequences(SEQS, maxlen=2, padding=padding, truncating=truncating)
    np.testing.assert_array_equal(out, want)


def test_value_dtype_and_empty_sequences():
    out = pad_sequences([[], [1.5, 2.5]], maxlen=3, dtype="float32", value=-1.0)
    np.testing.assert_array_equal(out, [[-1, -1, -1], [-1, 1.5, 2.5]])
    assert out.dtype == np.float32
    assert pad_sequences([[1, 2]], maxlen=0).shape == (1, 0)
    assert pad_sequences([]).shape == (0, 0)


def test_strings_with_object_dtype():
    out = pad_sequences([["a", "b"], ["c"]], dtype="object", value="<pad>")
    assert out.tolist() == [["a", "b"], ["<pad>", "c"]]
    with pytest.raises(ValueError, match="string `value`"):
        pad_sequences([["a"]], value="<pad>")


def test_steps_with_their_own_shape():
    seqs = [np.ones((2, 3)), np.full((1, 3), 2.0)]
    out = pad_sequences(seqs, dtype="float32", padding="post")
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out[1, 1], 0.0)
    with pytest.raises(ValueError, match="shape"):
        pad_sequences([np.ones((2, 3)), np.ones((1, 4))], dtype="float32")


def test_argument_errors():
    with pytest.raises(ValueError, match="padding"):
        pad_sequences(SEQS, padding="middle")
    with pytest.raises(ValueError, match="truncating"):
        pad_sequences(SEQS, truncating="both")
    with pytest.raises(ValueError, match="element 1"):
        pad_sequences([[1], 2])
    with pytest.raises(ValueError, match="maxlen"):
        pad_sequences(SEQS, maxlen=-1)
