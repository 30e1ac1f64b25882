"""Discretization: fixed buckets, learned quantile boundaries, configs and saving."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import check_layer

X = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]], dtype="float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def test_int_buckets_match_numpy_digitize() -> None:
    layer = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    out = layer(X)
    assert ops.is_tensor(out)
    assert ops.convert_to_numpy(out).dtype == np.int32
    np.testing.assert_array_equal(_np(out), [[0, 2, 3, 1], [1, 3, 2, 1]])
    np.testing.assert_array_equal(_np(out), np.digitize(X, [0.0, 1.0, 2.0]))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("multi_hot", [[1, 1, 1, 1], [0, 1, 1, 1]]),
        ("count", [[1, 1, 1, 1], [0, 2, 1, 1]]),
    ],
)
def test_encoded_outputs(mode: str, expected: list[list[int]]) -> None:
    out = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0], output_mode=mode)(X)
    np.testing.assert_array_equal(_np(out), np.array(expected, "float32"))


def test_one_hot() -> None:
    layer = layers.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
    out = _np(layer(np.array([[-1.0], [0.5], [7.0]], "float32")))
    np.testing.assert_array_equal(out, np.eye(3))
    assert layer.compute_output_shape((None, 1)) == (None, 3)


def test_adapt_small_data_exact_quantiles() -> None:
    layer = layers.Discretization(num_bins=4, epsilon=0.01)
    layer.adapt(X)
    np.testing.assert_allclose(layer.bin_boundaries, [0.0, 0.5, 1.3], rtol=1e-6)
    np.testing.assert_array_equal(_np(layer(X)), [[0, 2, 3, 2], [1, 3, 3, 1]])


def test_adapt_streams_batches_close_to_numpy_quantiles() -> None:
    data = np.random.default_rng(0).standard_normal(4000).astype("float32")
    want = np.quantile(data, [0.2, 0.4, 0.6, 0.8])
    whole = layers.Discretization(num_bins=5)
    whole.adapt(data)
    np.testing.assert_allclose(whole.bin_boundaries, want, atol=0.05)
    streamed = layers.Discretization(num_bins=5)
    streamed.adapt([data[:1500], data[1500:]])
    np.testing.assert_allclose(streamed.bin_boundaries, want, atol=0.05)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_bins"):
        layers.Discretization()
    with pytest.raises(ValueError, match="num_bins"):
        layers.Discretization(bin_boundaries=[0.0], num_bins=2)
    with pytest.raises(ValueError, match="output_mode"):
        layers.Discretization(bin_boundaries=[0.0], output_mode="tf_idf")
    with pytest.raises(ValueError, match="bin_boundaries"):
        layers.Discretization(bin_boundaries=[0.0]).adapt(X)
    with pytest.raises(ValueError, match="adapt"):
        layers.Discretization(num_bins=3)(X)


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
def test_check_layer(mode: str) -> None:
    shapes = {"int": (2, 3), "one_hot": (2, 3, 4), "multi_hot": (2, 4), "count": (2, 4)}
    check_layer(
        layers.Discretization,
        {"bin_boundaries": [-0.5, 0.0, 0.5], "output_mode": mode},
        input_shape=(2, 3),
        expected_output_shape=shapes[mode],
        expected_output_dtype="int32" if mode == "int" else "float32",
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        skip_fit_check="int32 bucket ids: no loss can train on them" if mode == "int" else None,
    )


def test_adapted_config_and_archive_round_trip(tmp_path) -> None:
    layer = layers.Discretization(num_bins=4)
    layer.adapt(X)
    clone = layers.Discretization.from_config(layer.get_config())
    assert clone.bin_boundaries == layer.bin_boundaries and clone.num_bins == 4
    inputs = lamina.Input((4,))
    model = lamina.Model(inputs, layer(inputs))
    path = str(tmp_path / "disc.lamina")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    np.testing.assert_array_equal(_np(loaded(X)), _np(model(X)))
    assert loaded.layers[-1].bin_boundaries == layer.bin_boundaries
