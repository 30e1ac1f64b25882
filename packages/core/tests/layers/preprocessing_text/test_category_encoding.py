"""CategoryEncoding against fixed expected encodings, configs and a saved-model round trip."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import check_layer

IDS = np.array([[0, 1, 1], [3, 3, 2]], dtype="int32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("multi_hot", [[1, 1, 0, 0], [0, 0, 1, 1]]),
        ("count", [[1, 2, 0, 0], [0, 0, 1, 2]]),
    ],
)
def test_multi_hot_and_count(mode: str, expected: list[list[int]]) -> None:
    out = layers.CategoryEncoding(4, mode)(IDS)
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), np.array(expected, "float32"))


def test_one_hot_squeezes_trailing_one() -> None:
    layer = layers.CategoryEncoding(3, "one_hot")
    out = _np(layer(np.array([[0], [2]], "int32")))
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1]])
    assert layer.compute_output_shape((None, 1)) == (None, 3)
    out = _np(layer(np.array([0, 2, 1], "int32")))
    np.testing.assert_array_equal(out, np.eye(3)[[0, 2, 1]])


def test_rank1_is_one_sample_and_count_weights() -> None:
    out = _np(layers.CategoryEncoding(3, "multi_hot")(np.array([2, 0, 2], "int32")))
    np.testing.assert_array_equal(out, [1, 0, 1])
    weights = np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 1.0]], "float32")
    out = _np(layers.CategoryEncoding(4, "count")(IDS, count_weights=weights))
    np.testing.assert_allclose(out, [[0.5, 3.0, 0, 0], [0, 0, 1.0, 2.0]])
    with pytest.raises(ValueError, match="count_weights"):
        layers.CategoryEncoding(4, "one_hot")(IDS, count_weights=weights)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_tokens"):
        layers.CategoryEncoding(None)
    with pytest.raises(ValueError, match="output_mode"):
        layers.CategoryEncoding(3, "tf_idf")
    with pytest.raises(ValueError, match="sparse"):
        layers.CategoryEncoding(3, sparse=True)
    assert layers.CategoryEncoding(3, "binary").output_mode == "multi_hot"


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_check_layer(mode: str) -> None:
    check_layer(
        layers.CategoryEncoding,
        {"num_tokens": 10, "output_mode": mode},
        input_shape=(2, 3),
        input_dtype="int32",
        expected_output_shape=(2, 3, 10) if mode == "one_hot" else (2, 10),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
    )


def test_config_and_archive_round_trip(tmp_path) -> None:
    layer = layers.CategoryEncoding(5, "count", name="enc")
    config = layer.get_config()
    assert config["num_tokens"] == 5 and config["output_mode"] == "count"
    clone = layers.CategoryEncoding.from_config(config)
    np.testing.assert_array_equal(_np(clone(IDS)), _np(layer(IDS)))
    inputs = lamina.Input((3,), dtype="int32")
    model = lamina.Model(inputs, layers.CategoryEncoding(5, "count")(inputs))
    path = str(tmp_path / "enc.lamina")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_array_equal(_np(loaded(IDS)), _np(model(IDS)))
