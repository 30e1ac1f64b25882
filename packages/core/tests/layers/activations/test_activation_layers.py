"""`ReLU`, `LeakyReLU`, `PReLU`, `ELU`, `Softmax`: formulas against NumPy, the layer contract."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(3)
X = (RNG.standard_normal((2, 3, 4)) * 4.0).astype("float32")


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (ReLU, {"max_value": 2.0, "negative_slope": 0.1, "threshold": 0.5}),
        (LeakyReLU, {"negative_slope": 0.2}),
        (ELU, {"alpha": 0.5}),
    ],
)
def test_elementwise_contract(cls, kwargs):
    check_layer(
        cls,
        kwargs,
        (2, 3, 4),
        expected_output_shape=(2, 3, 4),
        expected_num_trainable_weights=0,
        supports_masking=True,
    )


@pytest.mark.parametrize("axis", [-1, [1, 2]])
def test_softmax_contract(axis):
    # Softmax's mask covers the logits it normalizes, not timesteps: its own tests below.
    layer = check_layer(
        Softmax, {"axis": axis}, (2, 3, 4), expected_output_shape=(2, 3, 4)
    )
    assert layer.supports_masking


def test_prelu_contract_shared_axes():
    layer = check_layer(
        PReLU,
        {"shared_axes": [1], "alpha_initializer": "ones"},
        (2, 3, 4),
        expected_output_shape=(2, 3, 4),
        expected_num_trainable_weights=1,
        supports_masking=True,
    )
    assert tuple(layer.alpha.shape) == (1, 4)


def relu_ref(x, max_value=None, slope=0.0, threshold=0.0):
    out = np.where(x > threshold, x, slope * (x - threshold))
    if max_value is not None:
        out = np.where(out > max_value, max_value, out)
    return out


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"max_value": 6.0}, {"negative_slope": 0.1}, {"threshold": 1.0, "max_value": 3.0}],
)
def test_relu_formula(kwargs):
    ref = relu_ref(
        X,
        kwargs.get("max_value"),
        kwargs.get("negative_slope", 0.0),
        kwargs.get("threshold", 0.0),
    )
    assert_allclose(ReLU(**kwargs)(X), ref)


def test_relu_rejects_negative_arguments():
    with pytest.raises(ValueError, match="max_value"):
        ReLU(max_value=-1.0)
    with pytest.raises(ValueError, match="negative_slope"):
        ReLU(negative_slope=-0.5)
    with pytest.raises(ValueError, match="negative_slope"):
        LeakyReLU(negative_slope=-0.1)


def test_leaky_relu_default_slope_and_keras2_alpha():
    assert_allclose(LeakyReLU()(X), np.where(X > 0, X, 0.3 * X))
    with pytest.warns(UserWarning, match="alpha"):
        layer = LeakyReLU(alpha=0.05)
    assert layer.negative_slope == pytest.approx(0.05)
    assert layer.get_config()["negative_slope"] == pytest.approx(0.05)


def test_elu_formula():
    assert_allclose(ELU(alpha=0.7)(X), np.where(X > 0, X, 0.7 * (np.exp(X) - 1.0)), loose=10)


def test_prelu_learned_slopes_per_channel():
    layer = PReLU(shared_axes=[1])
    layer.build((2, 3, 4))
    alpha = np.array([0.1, 0.2, 0.3, 0.4], "float32").reshape(1, 4)
    layer.alpha.assign(alpha)
    assert_allclose(layer(X), np.where(X > 0, X, alpha * X))


def test_prelu_default_is_relu_and_checks_rank():
    layer = PReLU()
    assert_allclose(layer(X), np.maximum(X, 0.0))
    assert tuple(layer.alpha.shape) == (3, 4)
    with pytest.raises(ValueError):
        layer(np.zeros((2, 3, 5), "float32"))
    with pytest.raises(ValueError, match="shared_axes"):
        PReLU(shared_axes=[0])


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axes():
    assert_allclose(Softmax()(X), softmax_ref(X, -1), loose=10)
    assert_allclose(Softmax(axis=1)(X), softmax_ref(X, 1), loose=10)
    assert_allclose(Softmax(axis=[1, 2])(X), softmax_ref(X, (1, 2)), loose=10)


def test_softmax_mask_zeroes_masked_positions():
    mask = RNG.uniform(size=(2, 3, 4)) > 0.3
    mask[..., 0] = True
    out = lamina.ops.convert_to_numpy(Softmax()(X, mask=mask))
    logits = np.where(mask, X, -np.inf)
    expected = softmax_ref(logits, -1)
    assert_allclose(out, expected, loose=10)
    assert np.all(out[~mask] == 0.0)


def test_softmax_broadcast_mask():
    mask = np.array([[True, True, False, True]])
    out = Softmax()(X, mask=mask)
    expected = softmax_ref(np.where(mask, X, -np.inf), -1)
    assert_allclose(out, expected, loose=10)


@pytest.mark.parametrize(
    "layer",
    [
        ReLU(max_value=1.0, negative_slope=0.2, threshold=0.1),
        LeakyReLU(0.05),
        ELU(0.4),
        Softmax(axis=[1, 2]),
        PReLU(shared_axes=[2], alpha_initializer="ones"),
    ],
    ids=lambda layer: type(layer).__name__,
)
def test_configs_round_trip(layer):
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
