"""TextVectorization: standardize/split/ngrams, every output mode, adapt and configs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.saving.serialization import SafeModeScope


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_int_mode_pads_and_cuts() -> None:
    layer = layers.TextVectorization(output_sequence_length=4)
    layer.adapt(["The cat sat.", "the dog"])
    assert layer.get_vocabulary() == ["", "[UNK]", "the", "sat", "dog", "cat"]
    out = layer(["the cat, the dog!"])
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), [[2, 5, 2, 4]])
    np.testing.assert_array_equal(_np(layer(np.array([["a cat"]]))), [[1, 5, 0, 0]])
    ragged = layers.TextVectorization(vocabulary=["the", "cat"])
    np.testing.assert_array_equal(_np(ragged(["The cat", "cat"])), [[2, 3], [3, 0]])


def test_tf_string_inputs() -> None:
    if lamina.backend.backend() != "tensorflow":
        pytest.skip("tf.string tensors only exist on the tensorflow backend")
    import tensorflow as tf

    layer = layers.TextVectorization(vocabulary=["the", "cat"])
    np.testing.assert_array_equal(_np(layer(tf.constant(["The CAT"]))), [[2, 3]])


@pytest.mark.parametrize(
    ("standardize", "expected"),
    [
        ("lower_and_strip_punctuation", ["hello", "world"]),
        ("lower", ["hello,", "world!"]),
        ("strip_punctuation", ["Hello", "World"]),
        (None, ["Hello,", "World!"]),
    ],
)
def test_standardize_modes(standardize: str | None, expected: list[str]) -> None:
    layer = layers.TextVectorization(standardize=standardize)
    layer.adapt(["Hello, World!"])
    assert sorted(layer.get_vocabulary(include_special_tokens=False)) == sorted(expected)


def test_callables_character_split_and_no_split() -> None:
    layer = layers.TextVectorization(
        standardize=lambda x: np.char.upper(x.astype(str)),
        split=lambda s: s.split("-"),
        vocabulary=["A", "B"],
    )
    np.testing.assert_array_equal(_np(layer(["a-b-c"])), [[2, 3, 1]])
    chars = layers.TextVectorization(split="character", vocabulary=["a", "b"])
    np.testing.assert_array_equal(_np(chars(["ab a"])), [[2, 3, 1, 2]])
    tokens = layers.TextVectorization(split=None, vocabulary=["x", "y"])
    np.testing.assert_array_equal(_np(tokens(np.array([["X", "y", "q"]]))), [[2, 3, 1]])


def test_ngrams_and_count() -> None:
    layer = layers.TextVectorization(output_mode="count", ngrams=2)
    layer.adapt(["a b a", "b c"])
    assert layer.get_vocabulary() == ["[UNK]", "b", "a", "c", "b c", "b a", "a b"]
    np.testing.assert_array_equal(_np(layer(["a b c"])), [[0, 1, 1, 1, 1, 0, 1]])
    multi = layers.TextVectorization(output_mode="multi_hot", ngrams=(2,), vocabulary=["a b"])
    np.testing.assert_array_equal(_np(multi(["a b a b", "b b"])), [[1, 1], [1, 0]])


def test_tf_idf_learned_and_given() -> None:
    layer = layers.TextVectorization(output_mode="tf_idf", split="character", standardize="lower")
    layer.adapt(["Aab", "bC"])
    assert layer.get_vocabulary() == ["[UNK]", "b", "a", "c"]
    idf_b, idf_a = math.log(1 + 2 / 3), math.log(2.0)
    oov = (idf_b + 2 * idf_a) / 3
    np.testing.assert_allclose(_np(layer(["abz"])), [[oov, idf_b, idf_a, 0.0]], rtol=1e-6)
    given = layers.TextVectorization(
        output_mode="tf_idf",
        vocabulary=["x", "y"],
        idf_weights=[1.0, 3.0],
        pad_to_max_tokens=True,
        max_tokens=5,
    )
    np.testing.assert_allclose(_np(given(["y y q"])), [[2.0, 0.0, 6.0, 0.0, 0.0]], rtol=1e-6)


def test_max_tokens_limits_adapt() -> None:
    layer = layers.TextVectorization(max_tokens=4)
    layer.adapt(["a a a b b c"])
    assert layer.get_vocabulary() == ["", "[UNK]", "a", "b"]
    assert layer.vocabulary_size() == 4


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="standardize"):
        layers.TextVectorization(standardize="upper")
    with pytest.raises(ValueError, match="split"):
        layers.TextVectorization(split="comma")
    with pytest.raises(ValueError, match="output_sequence_length"):
        layers.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="ngrams"):
        layers.TextVectorization(ngrams=0)


def test_config_round_trip_and_safe_mode(tmp_path) -> None:
    layer = layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    layer.adapt(["a b a", "b c"])
    config = layer.get_config()
    assert config["vocabulary"] == layer.get_vocabulary(include_special_tokens=False)
    restored = lamina.saving.deserialize_lamina_object(lamina.saving.serialize_lamina_object(layer))
    np.testing.assert_allclose(_np(restored(["a b c d"])), _np(layer(["a b c d"])), rtol=1e-6)
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\n", encoding="utf-8")
    file_config = layers.TextVectorization(vocabulary=["a", "b"]).get_config()
    file_config["vocabulary"] = str(path)
    with pytest.raises(ValueError, match="safe mode"):
        layers.TextVectorization.from_config(file_config)
    with SafeModeScope(False):
        loaded = layers.TextVectorization.from_config(file_config)
    assert loaded.get_vocabulary() == ["", "[UNK]", "a", "b"]
