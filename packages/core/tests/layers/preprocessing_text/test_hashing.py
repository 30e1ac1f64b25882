"""Hashing: bins equal TensorFlow's (values from `tf.strings.to_hash_bucket_fast/strong`,
recorded once in the tensorflow env), masks, salts, encodings and configs."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers.preprocessing.farmhash import fingerprint64
from lamina.testing import check_layer

WORDS = ["A", "B", "C", "D", "E", "hello", "lamina", ""]
FAST_1000 = [564, 528, 7, 295, 12, 296, 222, 263]
STRONG_1000 = [24, 70, 727, 842, 134, 957, 279, 900]  # key [133, 137]
STRONG_7_1000 = [702, 202, 866, 461, 30, 413, 551, 358]  # key [7, 7]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_fingerprint64_matches_tensorflow_across_length_classes() -> None:
    assert fingerprint64(("x" * 100 + "é").encode()) % 2**62 == 411760961894592322
    assert [fingerprint64(w.encode()) % 3 for w in WORDS] == [1, 0, 1, 1, 2, 1, 0, 2]


@pytest.mark.parametrize("container", ["list", "numpy", "object", "bytes"])
def test_string_bins_match_tensorflow(container: str) -> None:
    data: object = {
        "list": WORDS,
        "numpy": np.array(WORDS),
        "object": np.array(WORDS, dtype=object),
        "bytes": np.array([w.encode() for w in WORDS]),
    }[container]
    out = layers.Hashing(num_bins=1000)(data)
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), FAST_1000)


def test_tf_string_tensor() -> None:
    if lamina.backend.backend() != "tensorflow":
        pytest.skip("tf.string tensors only exist on the tensorflow backend")
    import tensorflow as tf

    np.testing.assert_array_equal(_np(layers.Hashing(1000)(tf.constant(WORDS))), FAST_1000)


def test_integers_hash_as_decimal_strings() -> None:
    x = np.array([[1, 42, -7, 123456789, 0]], "int32")
    np.testing.assert_array_equal(_np(layers.Hashing(10)(x)), [[9, 6, 2, 6, 5]])


def test_salt_uses_the_keyed_hash() -> None:
    np.testing.assert_array_equal(_np(layers.Hashing(1000, salt=[133, 137])(WORDS)), STRONG_1000)
    layer = layers.Hashing(1000, salt=7)
    assert layer.salt == [7, 7]
    np.testing.assert_array_equal(_np(layer(WORDS)), STRONG_7_1000)


def test_mask_value_takes_bin_zero() -> None:
    out = _np(layers.Hashing(4, mask_value="")(WORDS))
    np.testing.assert_array_equal(out, [2, 1, 2, 2, 3, 2, 1, 0])


def test_encoded_modes() -> None:
    x = [["A", "B", "A"], ["C", "E", "E"]]
    count = _np(layers.Hashing(3, output_mode="count")(x))
    np.testing.assert_array_equal(count, [[1, 2, 0], [0, 1, 2]])
    multi = _np(layers.Hashing(3, output_mode="multi_hot")(x))
    np.testing.assert_array_equal(multi, [[1, 1, 0], [0, 1, 1]])
    one_hot = _np(layers.Hashing(3, output_mode="one_hot")([["A"], ["E"]]))
    np.testing.assert_array_equal(one_hot, [[0, 1, 0], [0, 0, 1]])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_bins"):
        layers.Hashing(0)
    with pytest.raises(ValueError, match="salt"):
        layers.Hashing(3, salt=[1, 2, 3])
    with pytest.raises(ValueError, match="output_mode"):
        layers.Hashing(3, output_mode="tf_idf")


def test_check_layer_and_config() -> None:
    check_layer(
        layers.Hashing,
        {"num_bins": 5, "salt": [1, 2]},
        input_shape=(2, 3),
        input_dtype="int32",
        expected_output_shape=(2, 3),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        skip_fit_check="integer bins, hashed on the host: no loss trains them, no trace holds them",
    )
    layer = layers.Hashing(7, mask_value="", salt=3, output_mode="count")
    clone = layers.Hashing.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    np.testing.assert_array_equal(_np(clone([WORDS])), _np(layer([WORDS])))
