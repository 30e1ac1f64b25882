"""`BatchNormalization`: formula, moving statistics, frozen mode, stateless calls, masks."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.backend import Capability
from lamina.layers.normalization import BatchNormalization
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(0)
X = (RNG.standard_normal((8, 5, 3)) * 2.0 + 1.5).astype("float32")


def reference(x, mean, var, gamma=None, beta=None, eps=1e-3):
    out = (x - mean) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out


def test_contract():
    check_layer(
        BatchNormalization,
        {"momentum": 0.9},
        (4, 5, 3),
        expected_output_shape=(4, 5, 3),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=2,
        expected_num_losses=0,
        supports_masking=True,
    )


def test_contract_channels_first_without_center_and_scale():
    check_layer(
        BatchNormalization,
        {"axis": 1, "center": False, "scale": False, "epsilon": 1e-5},
        (2, 3, 4, 4),
        expected_output_shape=(2, 3, 4, 4),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=2,
    )


def test_training_normalizes_with_batch_statistics():
    layer = BatchNormalization(epsilon=1e-3)
    out = layer(X, training=True)
    mean = X.mean(axis=(0, 1))
    var = X.var(axis=(0, 1))
    assert_allclose(out, reference(X, mean, var), loose=10)


def test_moving_statistics_update_with_momentum():
    layer = BatchNormalization(momentum=0.8)
    layer(X, training=True)
    mean = X.mean(axis=(0, 1))
    var = X.var(axis=(0, 1))
    assert_allclose(layer.moving_mean, 0.8 * 0.0 + 0.2 * mean, loose=10)
    assert_allclose(layer.moving_variance, 0.8 * 1.0 + 0.2 * var, loose=10)
    x2 = X[:4] * 0.5
    layer(x2, training=True)
    mean2 = 0.8 * (0.2 * mean) + 0.2 * x2.mean(axis=(0, 1))
    var2 = 0.8 * (0.8 + 0.2 * var) + 0.2 * x2.var(axis=(0, 1))
    assert_allclose(layer.moving_mean, mean2, loose=10)
    assert_allclose(layer.moving_variance, var2, loose=10)


def test_inference_uses_moving_statistics_and_leaves_them():
    layer = BatchNormalization(momentum=0.5)
    layer(X, training=True)
    gamma = np.array([1.0, 2.0, 0.5], "float32")
    beta = np.array([0.1, -0.2, 0.3], "float32")
    layer.gamma.assign(gamma)
    layer.beta.assign(beta)
    mm, mv = layer.moving_mean.numpy(), layer.moving_variance.numpy()
    for training in (False, None):
        out = layer(X, training=training)
        assert_allclose(out, reference(X, mm, mv, gamma, beta), loose=10)
    assert_allclose(layer.moving_mean, mm)
    assert_allclose(layer.moving_variance, mv)


def test_frozen_layer_runs_in_inference_mode():
    layer = BatchNormalization(momentum=0.5)
    layer(X, training=True)
    layer.trainable = False
    assert layer.trainable_weights == []
    assert len(layer.non_trainable_weights) == 4
    mm, mv = layer.moving_mean.numpy(), layer.moving_variance.numpy()
    out = layer(X, training=True)
    assert_allclose(out, reference(X, mm, mv), loose=10)
    assert_allclose(layer.moving_mean, mm)
    assert_allclose(layer.moving_variance, mv)


def test_stateless_call_returns_updated_statistics_without_assigning():
    layer = BatchNormalization(momentum=0.9)
    layer.build(X.shape)
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]
    out, new_values = layer.stateless_call(trainable, non_trainable, X, training=True)
    mean = X.mean(axis=(0, 1))
    var = X.var(axis=(0, 1))
    assert_allclose(out, reference(X, mean, var), loose=10)
    names = [v.name for v in layer.non_trainable_variables]
    got = dict(zip(names, new_values))
    assert_allclose(got["moving_mean"], 0.1 * mean, loose=10)
    assert_allclose(got["moving_variance"], 0.9 + 0.1 * var, loose=10)
    assert_allclose(layer.moving_mean, np.zeros(3, "float32"))
    assert_allclose(layer.moving_variance, np.ones(3, "float32"))
    _, unchanged = layer.stateless_call(trainable, non_trainable, X, training=False)
    assert_allclose(unchanged[0], np.zeros(3, "float32"))


def test_mask_excludes_entries_from_batch_statistics():
    mask = np.ones(X.shape[:2], bool)
    mask[:, 3:] = False
    layer = BatchNormalization(momentum=0.0)
    out = layer(X, training=True, mask=mask)
    kept = X[:, :3].reshape(-1, 3)
    mean, var = kept.mean(axis=0), kept.var(axis=0)
    assert_allclose(layer.moving_mean, mean, loose=10)
    assert_allclose(layer.moving_variance, var, loose=10)
    assert_allclose(out, reference(X, mean, var), loose=10)


@pytest.mark.half_precision
def test_mixed_precision_keeps_float32_statistics():
    layer = BatchNormalization(dtype="mixed_float16", momentum=0.0)
    out = layer(X, training=True)
    assert lamina.ops.dtypes.dtype_of(out) == "float16"
    assert layer.moving_mean.dtype == "float32"
    # Inputs are cast to float16 first; the statistics of those values are exact in float32.
    x16 = X.astype("float16").astype("float32")
    mean, var = x16.mean(axis=(0, 1)), x16.var(axis=(0, 1))
    assert_allclose(layer.moving_mean, mean, loose=10)
    assert_allclose(layer.moving_variance, var, loose=10)
    assert_allclose(out, reference(x16, mean, var), "float16")


def test_config_keeps_arguments():
    layer = BatchNormalization(
        axis=1, momentum=0.7, epsilon=0.01, center=False, synchronized=True,
        gamma_initializer="zeros",
    )
    config = layer.get_config()
    assert config["axis"] == 1 and config["momentum"] == 0.7 and config["epsilon"] == 0.01
    assert config["center"] is False and config["synchronized"] is True
    clone = BatchNormalization.from_config(config)
    clone.build((2, 3))
    assert_allclose(clone.gamma, np.zeros(3, "float32"))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"momentum": 1.5}, ValueError, "momentum=1.5"),
        ({"epsilon": -1.0}, ValueError, "epsilon=-1.0"),
        ({"axis": "last"}, TypeError, "axis='last'"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        BatchNormalization(**kwargs)


def test_axis_out_of_range_and_unknown_channels():
    with pytest.raises(ValueError, match="axis"):
        BatchNormalization(axis=3).build((2, 3))
    with pytest.raises(ValueError, match="known sizes"):
        BatchNormalization().build((2, None))


def _fit_model(trainable):
    from lamina.layers.core.dense import Dense

    x = (RNG.standard_normal((32, 3)) * 2 + 3).astype("float32")
    bn = BatchNormalization(momentum=0.5)
    model = lamina.Sequential([lamina.Input((3,)), bn, Dense(2)])
    bn.trainable = trainable
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, np.zeros((32, 2), "float32"), epochs=2, batch_size=32, verbose=0)
    return bn, x


@pytest.mark.requires(Capability.TRAINING)
def test_fit_updates_moving_statistics():
    bn, x = _fit_model(trainable=True)
    # Two full-batch steps from 0 with momentum 0.5: 0.75 of the batch mean.
    assert_allclose(bn.moving_mean, 0.75 * x.mean(axis=0), loose=10)
    assert_allclose(bn.moving_variance, 0.25 + 0.75 * x.var(axis=0), loose=10)


@pytest.mark.requires(Capability.TRAINING)
def test_fit_leaves_a_frozen_layer_alone():
    bn, _ = _fit_model(trainable=False)
    assert_allclose(bn.moving_mean, np.zeros(3, "float32"))
    assert_allclose(bn.moving_variance, np.ones(3, "float32"))
    assert_allclose(bn.gamma, np.ones(3, "float32"))
