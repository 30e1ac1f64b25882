"""Rescaling and Normalization: numerics, adapt statistics, inversion, configs, errors."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.layers.preprocessing import Normalization, Rescaling
from lamina.testing import assert_allclose

RNG = np.random.default_rng(2)
DATA = (RNG.standard_normal((64, 3)) * [1.0, 5.0, 0.1] + [2.0, -3.0, 10.0]).astype("float32")


def test_rescaling_scales_and_offsets_ints_and_floats():
    pixels = np.array([[0, 255]], "uint8")
    out = Rescaling(1 / 127.5, offset=-1.0)(pixels)
    assert ops.convert_to_numpy(out).dtype == np.float32
    assert_allclose(out, [[-1.0, 1.0]])
    per_channel = Rescaling([1.0, 2.0, 3.0])(np.ones((2, 3), "float32"))
    assert_allclose(per_channel, [[1.0, 2.0, 3.0]] * 2)
    config = Rescaling([1.0, 2.0], offset=0.5).get_config()
    assert config["scale"] == [1.0, 2.0] and config["offset"] == 0.5
    with pytest.raises(ValueError, match="scale"):
        Rescaling("big")


def test_normalization_adapt_from_array():
    layer = Normalization()
    layer.adapt(DATA)
    assert_allclose(layer.adapt_mean, DATA.mean(0), loose=10)
    assert_allclose(layer.adapt_variance, DATA.var(0), loose=10)
    out = ops.convert_to_numpy(layer(DATA))
    np.testing.assert_allclose(out.mean(0), 0.0, atol=1e-4)
    np.testing.assert_allclose(out.std(0), 1.0, atol=1e-4)
    assert layer.is_adapted


def test_normalization_adapt_from_batches_equals_whole_array():
    whole = Normalization()
    whole.adapt(DATA)
    chunked = Normalization()
    chunked.adapt(DATA, batch_size=10)
    generator = Normalization()
    generator.adapt(DATA[i : i + 7] for i in range(0, 64, 7))
    for layer in (chunked, generator):
        assert_allclose(layer.adapt_mean, whole.adapt_mean.numpy(), loose=10)
        assert_allclose(layer.adapt_variance, whole.adapt_variance.numpy(), loose=10)
    first_two = Normalization()
    first_two.adapt([DATA[:8], DATA[8:16], DATA[16:]], steps=2)
    assert_allclose(first_two.adapt_mean, DATA[:16].mean(0), loose=10)


def test_normalization_adapt_from_backend_tensor():
    layer = Normalization(axis=None)
    layer.adapt(ops.convert_to_tensor(DATA))
    assert tuple(layer.adapt_mean.shape) == ()
    assert_allclose(layer.adapt_mean, DATA.mean(), loose=10)
    assert_allclose(layer.adapt_variance, DATA.var(), loose=10)


def test_normalization_multiple_axes():
    data = RNG.standard_normal((10, 3, 4)).astype("float32") * 2 + 1
    layer = Normalization(axis=(1, 2))
    layer.adapt(data)
    assert tuple(layer.adapt_mean.shape) == (3, 4)
    assert_allclose(layer.adapt_mean, data.mean(0), loose=10)
    per_channel = Normalization(axis=1)
    per_channel.adapt(data)
    assert_allclose(per_channel.adapt_variance, data.var(axis=(0, 2)), loose=10)
    out = ops.convert_to_numpy(per_channel(data))
    np.testing.assert_allclose(out.mean(axis=(0, 2)), 0.0, atol=1e-4)


def test_normalization_given_stats_and_invert():
    x = np.array([[1.0, 2.0], [3.0, 6.0]], "float32")
    layer = Normalization(mean=[1.0, 2.0], variance=[4.0, 16.0])
    out = layer(x)
    assert_allclose(out, (x - [1.0, 2.0]) / [2.0, 4.0])
    inverse = Normalization(mean=[1.0, 2.0], variance=[4.0, 16.0], invert=True)
    assert_allclose(inverse(out), x)
    assert layer.weights == []
    with pytest.raises(ValueError, match="fixed"):
        layer.adapt(x)


def test_normalization_zero_variance_uses_epsilon():
    layer = Normalization(mean=1.0, variance=0.0)
    out = ops.convert_to_numpy(layer(np.array([[1.0, 1.0]], "float32")))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, 0.0)


def test_normalization_config_round_trip():
    layer = Normalization(axis=(1, 2), invert=True)
    config = layer.get_config()
    assert config["axis"] == [1, 2] and config["invert"] is True
    assert Normalization.from_config(config).get_config() == config
    fixed = Normalization(axis=None, mean=2.0, variance=3.0).get_config()
    assert fixed["axis"] is None and fixed["mean"] == 2.0 and fixed["variance"] == 3.0
    assert Normalization.from_config(fixed).get_config() == fixed


def test_normalization_errors():
    with pytest.raises(ValueError, match="together"):
        Normalization(mean=1.0)
    with pytest.raises(ValueError, match="axis"):
        Normalization(axis="last")
    with pytest.raises(ValueError, match="variance"):
        Normalization(mean=0.0, variance=-1.0)
    with pytest.raises(ValueError, match="axis"):
        Normalization(axis=3)(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match="known"):
        Normalization(axis=1).build((None, None))
    layer = Normalization()
    layer.adapt(DATA)
    with pytest.raises(ValueError, match="batch"):
        layer.adapt(np.ones((4, 5), "float32"))
    with pytest.raises(ValueError, match="no samples"):
        Normalization().adapt([])
    with pytest.raises(ValueError, match="data"):
        Normalization().adapt(3)
