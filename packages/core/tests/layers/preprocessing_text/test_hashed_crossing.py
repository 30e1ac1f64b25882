"""HashedCrossing: bins equal Keras 3's (values from `tf.sparse.cross_hashed`, recorded
once in the tensorflow env), shapes, one-hot output, errors and configs."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import check_layer

WORDS = ["A", "B", "A", "B", "A", "hello", ""]
INTS = [101, 101, 101, 102, 102, -5, 0]
MORE = ["x", "y", "z", "x", "y", "z", "x"]
CROSS_1000 = [891, 754, 891, 576, 523, 115, 600]
CROSS3_1000 = [95, 814, 114, 878, 107, 652, 799]
INT_INT_1000 = [13, 13, 13, 129, 129, 869, 304]


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_keras_docstring_example() -> None:
    layer = layers.HashedCrossing(num_bins=5)
    out = layer((np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102])))
    assert ops.is_tensor(out)
    np.testing.assert_array_equal(_np(out), [1, 4, 1, 1, 3])


@pytest.mark.parametrize("container", ["list", "numpy", "column", "bytes"])
def test_bins_match_tensorflow(container: str) -> None:
    if container == "list":
        feats: tuple[object, ...] = (WORDS, INTS)
    elif container == "numpy":
        feats = (np.array(WORDS), np.array(INTS, "int32"))
    elif container == "column":
        feats = (np.array(WORDS)[:, None], np.array(INTS, "int64")[:, None])
    else:
        feats = (np.array([w.encode() for w in WORDS]), np.array(INTS))
    out = _np(layers.HashedCrossing(1000)(feats))
    expected = np.array(CROSS_1000)
    np.testing.assert_array_equal(out, expected[:, None] if container == "column" else expected)


def test_three_features_and_integer_pairs() -> None:
    np.testing.assert_array_equal(
        _np(layers.HashedCrossing(1000)([WORDS, INTS, MORE])), CROSS3_1000
    )
    ints = np.array(INTS)
    np.testing.assert_array_equal(_np(layers.HashedCrossing(1000)((ints, ints))), INT_INT_1000)


def test_tf_string_tensor() -> None:
    if lamina.backend.backend() != "tensorflow":
        pytest.skip("tf.string tensors only exist on the tensorflow backend")
    import tensorflow as tf

    out = layers.HashedCrossing(1000)((tf.constant(WORDS), tf.constant(INTS)))
    np.testing.assert_array_equal(_np(out), CROSS_1000)


def test_scalars_and_one_hot() -> None:
    scalar = layers.HashedCrossing(1000)(("A", 101))
    assert tuple(scalar.shape) == ()
    assert int(_np(scalar)) == 891
    one = _np(layers.HashedCrossing(5, output_mode="one_hot")(("A", 101)))
    np.testing.assert_array_equal(one, np.eye(5)[1])
    feats = (np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102]))
    for shaped in (feats, tuple(f[:, None] for f in feats)):
        out = layers.HashedCrossing(5, output_mode="one_hot")(shaped)
        assert lamina.utils.standardize_dtype(out.dtype) == "float32"
        np.testing.assert_array_equal(_np(out), np.eye(5)[[1, 4, 1, 1, 3]])


def test_symbolic_shapes() -> None:
    a = lamina.Input(shape=(1,), dtype="int32")
    b = lamina.Input(shape=(1,), dtype="int32")
    assert tuple(layers.HashedCrossing(4)((a, b)).shape) == (None, 1)
    assert tuple(layers.HashedCrossing(4, output_mode="one_hot")((a, b)).shape) == (None, 4)
    assert layers.HashedCrossing(4, output_mode="one_hot").compute_output_shape([(3,), (3,)]) == (
        3,
        4,
    )


def test_bad_arguments_and_inputs() -> None:
    with pytest.raises(ValueError, match="num_bins"):
        layers.HashedCrossing(0)
    with pytest.raises(ValueError, match="output_mode"):
        layers.HashedCrossing(3, output_mode="multi_hot")
    with pytest.raises(ValueError, match="sparse"):
        layers.HashedCrossing(3, sparse=True)
    layer = layers.HashedCrossing(3)
    with pytest.raises(ValueError, match="list or tuple"):
        layer(np.array([1, 2]))
    with pytest.raises(ValueError, match="at least two"):
        layer((np.array([1, 2]),))
    with pytest.raises(ValueError, match="same shape"):
        layer((np.array([1, 2]), np.array([1, 2, 3])))
    with pytest.raises(ValueError, match="batch_size, 1"):
        layer((np.ones((2, 2), "int32"), np.ones((2, 2), "int32")))
    with pytest.raises(ValueError, match="integers or strings"):
        layer((np.array([1.5, 2.0]), np.array([1, 2])))


def test_check_layer_and_config() -> None:
    check_layer(
        layers.HashedCrossing,
        {"num_bins": 5},
        input_data=(np.array([[1], [2], [3]], "int32"), np.array([[4], [5], [6]], "int32")),
        expected_output_shape=(3, 1),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        run_mixed_precision_check=False,
        skip_fit_check="integer bins crossed on the host: no loss trains them, no trace holds them",
    )
    layer = layers.HashedCrossing(7, output_mode="one_hot", name="cross")
    config = layer.get_config()
    assert config["num_bins"] == 7 and config["output_mode"] == "one_hot"
    clone = layers.HashedCrossing.from_config(config)
    assert clone.get_config() == config
    np.testing.assert_array_equal(_np(clone((WORDS, INTS))), _np(layer((WORDS, INTS))))
