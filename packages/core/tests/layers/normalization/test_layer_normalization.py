"""`LayerNormalization`, `RMSNormalization`, `UnitNormalization`: per-sample formulas."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.layers.normalization import (
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(1)
X = (RNG.standard_normal((3, 4, 6)) * 3.0 - 1.0).astype("float32")


def layer_norm_ref(x, axes, gamma=None, beta=None, eps=1e-3):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out


def test_layer_norm_contract():
    check_layer(
        LayerNormalization,
        {"epsilon": 1e-5},
        (2, 4, 6),
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
    )


def test_layer_norm_contract_multi_axis_rms_scaling():
    check_layer(
        LayerNormalization,
        {"axis": [1, 2], "rms_scaling": True},
        (2, 4, 6),
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=1,
    )


def test_layer_norm_last_axis():
    layer = LayerNormalization()
    layer.build(X.shape)
    gamma = RNG.standard_normal(6).astype("float32")
    beta = RNG.standard_normal(6).astype("float32")
    layer.gamma.assign(gamma)
    layer.beta.assign(beta)
    assert_allclose(layer(X), layer_norm_ref(X, -1, gamma, beta), loose=10)


def test_layer_norm_several_axes_weights_span_them():
    layer = LayerNormalization(axis=[1, 2], center=False)
    out = layer(X)
    assert layer.gamma.shape == (4, 6) and layer.beta is None
    assert_allclose(out, layer_norm_ref(X, (1, 2)), loose=10)


def test_layer_norm_middle_axis_broadcasts_weights():
    layer = LayerNormalization(axis=1, epsilon=1e-4)
    layer.build(X.shape)
    gamma = np.arange(1, 5, dtype="float32")
    layer.gamma.assign(gamma)
    expected = layer_norm_ref(X, 1, eps=1e-4) * gamma.reshape(1, 4, 1)
    assert_allclose(layer(X), expected, loose=10)


def test_layer_norm_rms_scaling_divides_by_std_without_centering():
    layer = LayerNormalization(rms_scaling=True)
    out = layer(X)
    assert layer.beta is None and layer.gamma is not None
    expected = X / np.sqrt(X.var(axis=-1, keepdims=True) + 1e-3)
    assert_allclose(out, expected, loose=10)


def test_layer_norm_same_in_training_and_inference():
    layer = LayerNormalization()
    expected = ops.convert_to_numpy(layer(X, training=False))
    assert_allclose(layer(X, training=True), expected)


@pytest.mark.half_precision
def test_layer_norm_float16_is_accurate():
    layer = LayerNormalization(dtype="float16")
    out = layer(X.astype("float16"))
    x16 = X.astype("float16").astype("float32")
    assert_allclose(out, layer_norm_ref(x16, -1), "float16", loose=2)


def test_rms_norm_contract():
    check_layer(
        RMSNormalization,
        {},
        (2, 3, 8),
        expected_output_shape=(2, 3, 8),
        expected_num_trainable_weights=1,
        supports_masking=True,
    )


def test_rms_norm_formula():
    layer = RMSNormalization(epsilon=1e-5)
    layer.build(X.shape)
    scale = RNG.uniform(0.5, 2.0, 6).astype("float32")
    layer.scale.assign(scale)
    expected = X / np.sqrt((X**2).mean(axis=-1, keepdims=True) + 1e-5) * scale
    assert_allclose(layer(X), expected, loose=10)


def test_rms_norm_several_axes():
    layer = RMSNormalization(axis=[1, 2])
    out = layer(X)
    assert layer.scale.shape == (4, 6)
    expected = X / np.sqrt((X**2).mean(axis=(1, 2), keepdims=True) + 1e-6)
    assert_allclose(out, expected, loose=10)


def test_unit_norm_contract():
    check_layer(
        UnitNormalization,
        {"axis": [1, 2]},
        (2, 3, 4),
        expected_output_shape=(2, 3, 4),
        expected_num_trainable_weights=0,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
    )


def test_unit_norm_formula_and_zero_rows():
    x = X.copy()
    x[0, 0] = 0.0
    out = UnitNormalization()(x)
    norms = np.sqrt((x**2).sum(axis=-1, keepdims=True))
    expected = np.where(norms > 0, x / np.maximum(norms, 1e-6), 0.0)
    assert_allclose(out, expected, loose=10)
    norms_out = np.linalg.norm(ops.convert_to_numpy(out)[1:], axis=-1)
    assert_allclose(norms_out, np.ones((2, 4)), loose=10)


@pytest.mark.parametrize(
    ("cls", "kwargs", "error", "match"),
    [
        (LayerNormalization, {"axis": []}, TypeError, r"axis=\[\]"),
        (LayerNormalization, {"axis": 1.5}, TypeError, "axis=1.5"),
        (LayerNormalization, {"epsilon": -0.1}, ValueError, "epsilon=-0.1"),
        (RMSNormalization, {"epsilon": "small"}, ValueError, "epsilon='small'"),
        (UnitNormalization, {"axis": "x"}, TypeError, "axis='x'"),
    ],
)
def test_bad_arguments(cls, kwargs, error, match):
    with pytest.raises(error, match=match):
        cls(**kwargs)


def test_bad_axes_for_the_input_rank():
    with pytest.raises(ValueError, match="axis"):
        LayerNormalization(axis=3)(X)
    with pytest.raises(ValueError, match="repeats"):
        RMSNormalization(axis=[2, -1])(X)
