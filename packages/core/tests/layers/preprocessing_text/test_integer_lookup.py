"""IntegerLookup: tensor-op lookups (usable in compiled steps), modes, adapt and saving."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import check_layer

VOCAB = [12, 36, 7]


def _ints(x: object) -> np.ndarray:
    return np.asarray(x, dtype="int32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_int_mode_with_mask_and_oov() -> None:
    layer = layers.IntegerLookup(vocabulary=VOCAB, mask_token=0)
    x = _ints([[12, 0, 5], [7, 36, 12]])
    out = layer(x)
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), [[2, 0, 1], [4, 3, 2]])
    np.testing.assert_array_equal(_np(layer.compute_mask(x)), x != 0)
    assert layer.get_vocabulary() == [0, -1, 12, 36, 7]
    assert layer.vocabulary_size() == 5


def test_several_oov_indices_use_value_mod_n() -> None:
    layer = layers.IntegerLookup(vocabulary=VOCAB, num_oov_indices=2)
    np.testing.assert_array_equal(_np(layer(_ints([12, 5, 4, 7]))), [2, 1, 0, 4])
    counted = layers.IntegerLookup(vocabulary=VOCAB, num_oov_indices=2, output_mode="count")
    out = _np(counted(_ints([[12, 5, 4], [7, 36, 12]])))
    np.testing.assert_array_equal(out, [[1, 1, 1, 0, 0], [0, 0, 1, 1, 1]])


def test_tf_idf_and_one_hot() -> None:
    layer = layers.IntegerLookup(
        vocabulary=VOCAB, idf_weights=[1.0, 2.0, 3.0], output_mode="tf_idf"
    )
    out = _np(layer(_ints([[7, 7, 99]])))
    np.testing.assert_allclose(out, [[2.0, 0.0, 0.0, 6.0]], rtol=1e-6)
    one_hot = layers.IntegerLookup(vocabulary=VOCAB, output_mode="one_hot")
    np.testing.assert_array_equal(_np(one_hot(_ints([[36], [1]]))), [[0, 0, 1, 0], [1, 0, 0, 0]])


def test_adapt_and_invert() -> None:
    layer = layers.IntegerLookup()
    layer.adapt(_ints([[5, 5, 3], [3, 9, 5]]))
    assert layer.get_vocabulary() == [-1, 5, 3, 9]
    inverse = layers.IntegerLookup(vocabulary=layer.get_vocabulary(), invert=True)
    np.testing.assert_array_equal(_np(inverse(_ints([[1, 2, 0, 8]]))), [[5, 3, -1, -1]])


@pytest.mark.parametrize("mode", ["int", "multi_hot", "count", "tf_idf"])
def test_check_layer(mode: str) -> None:
    kwargs: dict[str, object] = {"vocabulary": [1, 2, 3, 5, 8], "output_mode": mode}
    if mode == "tf_idf":
        kwargs["idf_weights"] = [0.1, 0.2, 0.3, 0.4, 0.5]
    check_layer(
        layers.IntegerLookup,
        kwargs,
        input_shape=(2, 4),
        input_dtype="int32",
        expected_output_shape=(2, 4) if mode == "int" else (2, 6),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        skip_fit_check="int64 indices: no loss can train on them" if mode == "int" else None,
    )


def test_archive_round_trip_keeps_vocabulary(tmp_path) -> None:
    layer = layers.IntegerLookup(output_mode="count")
    layer.adapt(_ints([[5, 5, 3], [3, 9, 5]]))
    inputs = lamina.Input((3,), dtype="int32")
    model = lamina.Model(inputs, layer(inputs))
    path = str(tmp_path / "ids.lamina")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert loaded.layers[-1].get_vocabulary() == [-1, 5, 3, 9]
    x = _ints([[9, 9, 4]])
    np.testing.assert_array_equal(_np(loaded(x)), [[1, 0, 0, 2]])
