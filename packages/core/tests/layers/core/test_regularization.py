"""Dropout family and training-time noise: statistics, training flag, shapes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers.regularization import (
    ActivityRegularization,
    AlphaDropout,
    Dropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from lamina.testing import assert_allclose

ONES = np.ones((200, 100), "float32")


def np_(x):
    return np.asarray(ops.convert_to_numpy(x))


def test_dropout_is_identity_at_inference():
    layer = Dropout(0.5, seed=1)
    assert_allclose(layer(ONES), ONES)
    assert_allclose(layer(ONES, training=False), ONES)


def test_dropout_statistics_in_training():
    out = np_(Dropout(0.3, seed=7)(ONES, training=True))
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    assert abs(out.mean() - 1.0) < 0.04


def test_dropout_draws_new_masks_and_is_seeded():
    layer = Dropout(0.5, seed=3)
    first = np_(layer(ONES, training=True))
    second = np_(layer(ONES, training=True))
    assert not np.array_equal(first, second)
    again = np_(Dropout(0.5, seed=3)(ONES, training=True))
    np.testing.assert_array_equal(first, again)


def test_dropout_training_flag_flows_from_model():
    inputs = lamina.Input(shape=(100,))
    model = lamina.Model(inputs, Dropout(0.5, seed=1)(inputs))
    assert_allclose(model(ONES), ONES)
    assert (np_(model(ONES, training=True)) == 0).any()


def test_dropout_noise_shape_shares_mask():
    x = np.ones((8, 5, 6), "float32")
    out = np_(Dropout(0.5, noise_shape=(None, 1, 6), seed=2)(x, training=True))
    assert (out == out[:, :1, :]).all()


def test_dropout_rate_zero_has_no_seed_and_bad_rates_fail():
    layer = Dropout(0.0)
    assert layer.non_trainable_variables == []
    assert_allclose(layer(ONES, training=True), ONES)
    for rate in (1.0, -0.1, "0.5", True):
        with pytest.raises(ValueError, match="rate"):
            Dropout(rate)
    with pytest.raises(ValueError, match="noise_shape"):
        Dropout(0.5, noise_shape=3)


@pytest.mark.parametrize(
    ("cls", "shape", "kwargs", "shared_axes"),
    [
        (SpatialDropout1D, (6, 20, 8), {}, (1,)),
        (SpatialDropout2D, (6, 5, 5, 8), {}, (1, 2)),
        (SpatialDropout2D, (6, 8, 5, 5), {"data_format": "channels_first"}, (2, 3)),
        (SpatialDropout3D, (4, 3, 3, 3, 8), {}, (1, 2, 3)),
        (SpatialDropout3D, (4, 8, 3, 3, 3), {"data_format": "channels_first"}, (2, 3, 4)),
    ],
)
def test_spatial_dropout_drops_whole_channels(cls, shape, kwargs, shared_axes):
    x = np.ones(shape, "float32")
    out = np_(cls(0.5, seed=4, **kwargs)(x, training=True))
    first = out[tuple(slice(0, 1) if a in shared_axes else slice(None) for a in range(len(shape)))]
    assert (out == first).all()
    assert (out == 0).any() and (out == 2).any()
    assert_allclose(cls(0.5, **kwargs)(x), x)


def test_spatial_dropout_checks_rank_and_data_format():
    with pytest.raises(ValueError):
        SpatialDropout2D(0.5)(np.ones((2, 3, 4), "float32"), training=True)
    with pytest.raises(ValueError, match="data_format"):
        SpatialDropout2D(0.5, data_format="nhwc")


def test_gaussian_noise_statistics():
    x = np.zeros((400, 100), "float32")
    layer = GaussianNoise(0.5, seed=1)
    out = np_(layer(x, training=True))
    assert abs(out.mean()) < 0.01 and abs(out.std() - 0.5) < 0.01
    assert_allclose(layer(x), x)
    with pytest.raises(ValueError, match="stddev"):
        GaussianNoise(-1.0)


def test_gaussian_dropout_statistics():
    layer = GaussianDropout(0.2, seed=1)
    out = np_(layer(np.ones((400, 100), "float32"), training=True))
    assert abs(out.mean() - 1.0) < 0.01
    assert abs(out.std() - np.sqrt(0.2 / 0.8)) < 0.01
    assert_allclose(layer(ONES), ONES)
    with pytest.raises(ValueError, match="rate"):
        GaussianDropout(1.5)


ALPHA_P = -1.6732632423543772 * 1.0507009873554805


def _alpha_affine(rate):
    """The SELU-preserving correction ``a * x + b`` for dropout rate `rate`."""
    a = ((1 - rate) * (1 + rate * ALPHA_P**2)) ** -0.5
    return a, -a * ALPHA_P * rate


def test_alpha_dropout_keeps_mean_and_variance_of_standard_inputs():
    x = np.random.default_rng(0).standard_normal((500, 200)).astype("float32")
    out = np_(AlphaDropout(0.2, seed=5)(x, training=True))
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1.0) < 0.02
    rate = 0.2
    a, b = _alpha_affine(rate)
    dropped = np.isclose(out, a * ALPHA_P + b, atol=1e-5)
    assert abs(dropped.mean() - rate) < 0.01
    np.testing.assert_allclose(out[~dropped], (a * x + b)[~dropped], rtol=1e-4, atol=1e-5)
    assert_allclose(AlphaDropout(0.2)(x), x)
    shared = np_(AlphaDropout(0.5, noise_shape=(None, 1), seed=1)(x[:, :4], training=True))
    a, b = _alpha_affine(0.5)
    rows = np.isclose(shared, a * ALPHA_P + b, atol=1e-5)
    # One keep decision per row: a row is dropped entirely or not at all.
    assert (rows.all(axis=1) | ~rows.any(axis=1)).all()
    assert rows.all(axis=1).any() and (~rows.any(axis=1)).any()
    with pytest.raises(ValueError, match="noise_shape"):
        AlphaDropout(0.5, noise_shape=(None,))(x, training=True)


def test_activity_regularization_adds_penalty():
    x = np.array([[1.0, -2.0], [3.0, 0.0]], "float32")
    layer = ActivityRegularization(l1=0.1, l2=0.01)
    assert_allclose(layer(x), x)
    assert len(layer.losses) == 1
    assert_allclose(layer.losses[0], 0.1 * 6.0 + 0.01 * 14.0)
    config = layer.get_config()
    assert config["l1"] == 0.1 and "activity_regularizer" not in config
    assert ActivityRegularization.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="l2"):
        ActivityRegularization(l2=-1.0)
