"""StringLookup: indices, special tokens, encodings, tf_idf, adapt, invert and saving."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.saving.serialization import SafeModeScope

VOCAB = ["a", "b", "c"]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _inputs() -> list[object]:
    data = [["a", "z"], ["c", "b"]]
    out: list[object] = [data, np.array(data), np.array(data, dtype=object)]
    out.append(np.array([[s.encode() for s in row] for row in data]))
    if lamina.backend.backend() == "tensorflow":
        import tensorflow as tf

        out.append(tf.constant(data))
    return out


@pytest.mark.parametrize("index", range(5))
def test_int_mode_on_every_string_container(index: int) -> None:
    inputs = _inputs()
    if index >= len(inputs):
        pytest.skip("tf.string tensors only exist on the tensorflow backend")
    out = layers.StringLookup(vocabulary=VOCAB)(inputs[index])
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), [[1, 0], [3, 2]])


def test_mask_token_and_vocabulary_accessors() -> None:
    layer = layers.StringLookup(vocabulary=VOCAB, mask_token="")
    x = np.array([["a", ""], ["c", "q"]])
    np.testing.assert_array_equal(_np(layer(x)), [[2, 0], [4, 1]])
    np.testing.assert_array_equal(_np(layer.compute_mask(x)), [[True, False], [True, True]])
    assert layer.get_vocabulary() == ["", "[UNK]", "a", "b", "c"]
    assert layer.get_vocabulary(include_special_tokens=False) == VOCAB
    assert layer.vocabulary_size() == 5
    layer.set_vocabulary(["", "[UNK]", "x", "y"])
    assert layer.get_vocabulary() == ["", "[UNK]", "x", "y"]
    np.testing.assert_array_equal(_np(layer(["y", "a"])), [3, 1])


def test_no_oov_indices_refuses_unknown_terms() -> None:
    layer = layers.StringLookup(vocabulary=VOCAB, num_oov_indices=0)
    np.testing.assert_array_equal(_np(layer(["c", "a"])), [2, 0])
    with pytest.raises(ValueError, match="num_oov_indices=0"):
        layer(["z"])


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("count", [[0, 2, 1, 0], [1, 0, 0, 2]]),
        ("multi_hot", [[0, 1, 1, 0], [1, 0, 0, 1]]),
    ],
)
def test_encoded_modes(mode: str, expected: list[list[int]]) -> None:
    x = [["a", "b", "a"], ["c", "z", "c"]]
    out = layers.StringLookup(vocabulary=VOCAB, output_mode=mode)(x)
    np.testing.assert_array_equal(_np(out), np.array(expected, "float32"))


def test_one_hot_mask_dropped_and_padding() -> None:
    one_hot = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")(["a", "z"])
    np.testing.assert_array_equal(_np(one_hot), [[0, 1, 0, 0], [1, 0, 0, 0]])
    masked = layers.StringLookup(vocabulary=VOCAB, mask_token="", output_mode="multi_hot")
    np.testing.assert_array_equal(_np(masked([["a", ""]])), [[0, 1, 0, 0]])
    padded = layers.StringLookup(
        vocabulary=VOCAB, max_tokens=6, pad_to_max_tokens=True, output_mode="count"
    )
    np.testing.assert_array_equal(_np(padded([["c", "c"]])), [[0, 0, 0, 2, 0, 0]])


def test_tf_idf_with_given_weights() -> None:
    layer = layers.StringLookup(vocabulary=VOCAB, idf_weights=[0.5, 1.0, 2.0], output_mode="tf_idf")
    out = _np(layer([["a", "a", "z", "c"]]))
    np.testing.assert_allclose(out, [[7 / 6, 1.0, 0.0, 2.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="idf_weights"):
        layers.StringLookup(vocabulary=VOCAB, output_mode="tf_idf")


def test_adapt_orders_by_frequency_and_learns_idf() -> None:
    data = np.array([["a", "b", "a"], ["b", "c", "d"]])
    layer = layers.StringLookup(output_mode="tf_idf")
    layer.adapt(data)
    assert layer.get_vocabulary() == ["[UNK]", "b", "a", "d", "c"]
    idf = [math.log(1 + 2 / 3), math.log(2.0), math.log(2.0), math.log(2.0)]
    out = _np(layer([["b", "b", "q"]]))
    np.testing.assert_allclose(out, [[np.mean(idf), 2 * idf[0], 0, 0, 0]], rtol=1e-6)
    small = layers.StringLookup(max_tokens=3)
    small.adapt(data)
    assert small.get_vocabulary() == ["[UNK]", "b", "a"]
    with pytest.raises(ValueError, match="vocabulary"):
        layers.StringLookup(vocabulary=VOCAB).adapt(data)


def test_invert() -> None:
    layer = layers.StringLookup(vocabulary=VOCAB, invert=True)
    out = layer(np.array([[0, 1, 3, 9]], "int32"))
    assert out.tolist() == [["[UNK]", "a", "c", "[UNK]"]]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="repeats"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="mask_token"):
        layers.StringLookup(vocabulary=["a", ""], mask_token="")
    with pytest.raises(ValueError, match="output_mode"):
        layers.StringLookup(output_mode="bag")
    with pytest.raises(ValueError, match="invert"):
        layers.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="adapt"):
        layers.StringLookup()(["a"])


def test_config_round_trip_keeps_vocabulary_and_idf() -> None:
    layer = layers.StringLookup(output_mode="tf_idf", name="words")
    layer.adapt(np.array([["a", "b", "a"], ["b", "c", "d"]]))
    config = layer.get_config()
    assert config["vocabulary"] == ["b", "a", "d", "c"]
    restored = lamina.saving.deserialize_lamina_object(lamina.saving.serialize_lamina_object(layer))
    x = [["a", "d", "z"]]
    np.testing.assert_allclose(_np(restored(x)), _np(layer(x)), rtol=1e-6)


def test_vocabulary_file_and_safe_mode(tmp_path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n", encoding="utf-8")
    layer = layers.StringLookup(vocabulary=str(path))
    assert layer.get_vocabulary() == ["[UNK]", "a", "b", "c"]
    config = layers.StringLookup(vocabulary=VOCAB).get_config()
    config["vocabulary"] = str(path)
    with pytest.raises(ValueError, match="safe mode"):
        layers.StringLookup.from_config(config)
    with SafeModeScope(False):
        assert layers.StringLookup.from_config(config).get_vocabulary() == layer.get_vocabulary()


def test_archive_round_trip_keeps_vocabulary(tmp_path) -> None:
    inputs = lamina.Input((3,), dtype="int32")
    lookup = layers.StringLookup(vocabulary=VOCAB, mask_token="", invert=True)
    model = lamina.Model(inputs, lookup(inputs))
    x = np.array([[0, 1, 2], [4, 3, 9]], "int32")
    assert model(x).tolist() == [["", "[UNK]", "a"], ["c", "b", "[UNK]"]]
    path = str(tmp_path / "words.lamina")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert loaded.layers[-1].get_vocabulary() == ["", "[UNK]", "a", "b", "c"]
    assert loaded(x).tolist() == model(x).tolist()


def test_several_oov_indices_use_farmhash_buckets() -> None:
    # Buckets from tf.strings.to_hash_bucket_fast(["z", "q", "hello", "lamina"], 3).
    layer = layers.StringLookup(vocabulary=VOCAB, num_oov_indices=3)
    out = _np(layer(["z", "q", "hello", "lamina", "a"]))
    np.testing.assert_array_equal(out, [1, 2, 1, 0, 3])
    assert layer.get_vocabulary()[:4] == ["[UNK]", "[UNK]", "[UNK]", "a"]
