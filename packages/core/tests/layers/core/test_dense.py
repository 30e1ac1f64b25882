"""Dense and EinsumDense: numerics against NumPy, LoRA, regularizers, configs, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import Capability
from lamina.layers.core import Dense, EinsumDense
from lamina.testing import assert_allclose

RNG = np.random.default_rng(0)
X2 = RNG.standard_normal((4, 3)).astype("float32")
X3 = RNG.standard_normal((2, 5, 3)).astype("float32")


def test_dense_matches_numpy_affine_map():
    layer = Dense(4, bias_initializer="ones")
    out = layer(X2)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 4) and bias.shape == (4,)
    assert_allclose(out, X2 @ kernel + bias)


def test_dense_contracts_last_axis_of_nd_inputs():
    layer = Dense(2, activation="relu")
    out = layer(X3)
    kernel, bias = layer.get_weights()
    assert tuple(out.shape) == (2, 5, 2)
    assert_allclose(out, np.maximum(X3 @ kernel + bias, 0))


def test_dense_callable_activation_and_no_bias():
    layer = Dense(3, use_bias=False, activation=lambda t: ops.multiply(t, 2.0))
    out = layer(X2)
    assert len(layer.weights) == 1
    assert_allclose(out, 2.0 * X2 @ layer.get_weights()[0])


def test_dense_rejects_bad_units_and_unknown_last_axis():
    with pytest.raises(ValueError, match="units"):
        Dense(0)
    with pytest.raises(ValueError, match="units"):
        Dense(2.5)
    with pytest.raises(ValueError, match="last axis"):
        Dense(2).build((None, None))


def test_dense_input_spec_checks_feature_size_after_build():
    layer = Dense(2)
    layer(X2)
    with pytest.raises(ValueError):
        layer(np.ones((4, 5), "float32"))


def test_dense_regularizer_losses():
    layer = Dense(2, kernel_initializer="ones", kernel_regularizer="l2")
    layer(X2)
    # l2 default factor 0.01 * sum(kernel ** 2) = 0.01 * 6
    assert len(layer.losses) == 1
    assert_allclose(layer.losses[0], 0.06)


def test_dense_lora_keeps_outputs_and_trains_only_factors():
    layer = Dense(4)
    before = ops.convert_to_numpy(layer(X3))
    layer.enable_lora(2)
    assert_allclose(layer(X3), before)
    names = sorted(v.name for v in layer.trainable_weights)
    assert names == ["bias", "lora_kernel_a", "lora_kernel_b"]
    assert [v.name for v in layer.non_trainable_weights] == ["kernel"]
    assert tuple(layer.lora_kernel_a.shape) == (3, 2)
    assert tuple(layer.lora_kernel_b.shape) == (2, 4)
    # Making the layer trainable again keeps the frozen kernel frozen.
    layer.trainable = False
    layer.trainable = True
    assert [v.name for v in layer.non_trainable_weights] == ["kernel"]


def test_dense_lora_update_is_scaled_by_alpha_over_rank():
    layer = Dense(4, use_bias=False)
    layer(X2)
    layer.enable_lora(2, lora_alpha=6.0)
    a = RNG.standard_normal((3, 2)).astype("float32")
    b = RNG.standard_normal((2, 4)).astype("float32")
    layer.lora_kernel_a.assign(a)
    layer.lora_kernel_b.assign(b)
    kernel = layer._kernel.numpy()
    expected = kernel + (a @ b) * 3.0
    assert_allclose(layer.kernel, expected)
    assert_allclose(layer(X2), X2 @ expected)


def test_dense_lora_errors():
    with pytest.raises(ValueError, match="built"):
        Dense(2).enable_lora(1)
    layer = Dense(2)
    layer(X2)
    layer.enable_lora(1)
    with pytest.raises(ValueError, match="already"):
        layer.enable_lora(1)
    constrained = Dense(2, kernel_constraint="non_neg")
    constrained(X2)
    with pytest.raises(ValueError, match="constraint"):
        constrained.enable_lora(1)
    with pytest.raises(ValueError, match="lora_rank"):
        Dense(2, lora_rank=0)


def test_dense_lora_saves_merged_kernel():
    layer = Dense(3)
    layer(X2)
    layer.enable_lora(2)
    layer.lora_kernel_b.assign(np.ones((2, 3), "float32"))
    expected = ops.convert_to_numpy(layer(X2))
    store: dict[str, np.ndarray] = {}
    layer.save_own_variables(store)
    assert sorted(store) == ["0", "1"]
    plain = Dense(3)
    plain(X2)
    plain.load_own_variables(store)
    assert_allclose(plain(X2), expected)
    with_lora = Dense.from_config(layer.get_config())
    with_lora(X2)
    assert with_lora.lora_enabled
    with_lora.load_own_variables(store)
    assert_allclose(with_lora(X2), expected)


def test_dense_config_round_trip():
    layer = Dense(
        5,
        activation="relu",
        use_bias=False,
        kernel_initializer="he_normal",
        kernel_regularizer="l2",
        bias_constraint="non_neg",
        lora_rank=3,
        lora_alpha=2.0,
        name="d",
    )
    config = layer.get_config()
    assert config["units"] == 5 and config["lora_rank"] == 3 and config["lora_alpha"] == 2.0
    revived = Dense.from_config(config)
    assert revived.get_config() == config
    assert revived.name == "d"


def test_einsum_dense_matches_numpy_einsum():
    layer = EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d",
                        bias_initializer="ones")
    out = layer(X3)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 4) and bias.shape == (4,)
    assert_allclose(out, np.einsum("abc,cd->abd", X3, kernel) + bias)


def test_einsum_dense_multi_axis_kernel_and_bias_shapes():
    layer = EinsumDense("abc,cde->abde", output_shape=(None, 2, 6), bias_axes="de")
    out = layer(X3)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 2, 6) and bias.shape == (2, 6)
    assert_allclose(out, np.einsum("abc,cde->abde", X3, kernel) + bias)
    middle = EinsumDense("abc,cd->abd", output_shape=(5, 4), bias_axes="b")
    middle(X3)
    assert tuple(middle.bias.shape) == (5, 1)


def test_einsum_dense_ellipsis_forms():
    left = EinsumDense("...b,bc->...c", output_shape=4)
    assert tuple(left(X3).shape) == (2, 5, 4)
    right = EinsumDense("ab...,bc->ac...", output_shape=4, bias_axes="c")
    x = RNG.standard_normal((2, 3, 7)).astype("float32")
    out = right(x)
    kernel, bias = right.get_weights()
    assert tuple(out.shape) == (2, 4, 7) and bias.shape == (4, 1)
    assert_allclose(out, np.einsum("abz,bc->acz", x, kernel) + bias)


def test_einsum_dense_lora_keeps_outputs():
    layer = EinsumDense("abc,cde->abde", output_shape=(None, 2, 6))
    before = ops.convert_to_numpy(layer(X3))
    layer.enable_lora(2)
    assert tuple(layer.lora_kernel_a.shape) == (3, 2, 2)
    assert tuple(layer.lora_kernel_b.shape) == (2, 6)
    assert_allclose(layer(X3), before)
    assert len(layer.trainable_weights) == 2


@pytest.mark.parametrize(
    ("equation", "output_shape", "bias_axes", "match"),
    [
        ("ab->b", 3, None, "equation"),
        ("abc,cd->abd", (None,), None, "output_shape"),
        ("abc,cd->abd", (None, None), None, "output_shape"),
        ("abc,cd->abd", (6, 4), None, "size"),
        ("abc,cx->abd", (None, 4), None, "neither"),
        ("abc,cd->abd", (None, 4), "z", "bias_axes"),
    ],
)
def test_einsum_dense_rejects_bad_equations(equation, output_shape, bias_axes, match):
    layer = EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes)
    with pytest.raises(ValueError, match=match):
        layer(X3)


def test_einsum_dense_config_round_trip():
    layer = EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d", activation="gelu")
    config = layer.get_config()
    assert config["equation"] == "abc,cd->abd" and config["output_shape"] == [None, 4]
    assert EinsumDense.from_config(config).get_config() == config


@pytest.mark.requires(Capability.TRAINING)
def test_dense_lora_fit_updates_only_lora_factors():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 3)).astype("float32")
    y = rng.standard_normal((32, 2)).astype("float32")
    dense = Dense(2)
    model = lamina.Sequential([lamina.Input((3,)), dense])
    dense.enable_lora(1)
    kernel, bias, b = (v.numpy().copy() for v in (dense._kernel, dense.bias, dense.lora_kernel_b))
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    np.testing.assert_array_equal(dense._kernel.numpy(), kernel)
    assert np.abs(dense.lora_kernel_b.numpy() - b).max() > 0
    assert np.abs(dense.bias.numpy() - bias).max() > 0


@pytest.mark.half_precision
def test_each_input_is_cast_by_its_own_dtype_whatever_came_before():
    # Inputs a layer keeps as they are are remembered by kind; others still get cast.
    x32 = ops.convert_to_tensor(X2)
    x16 = ops.cast(x32, "float16")
    plain, half = Dense(2), Dense(2, dtype="float16")
    for _ in range(2):
        assert ops.dtype(plain(x32)) == "float32" and ops.dtype(plain(x16)) == "float32"
        assert ops.dtype(half(x16)) == "float16" and ops.dtype(half(x32)) == "float16"
        assert ops.dtype(plain(X2.astype("float64"))) == "float32"
    plain.autocast = False
    assert ops.dtype(plain(x16)) == "float32"  # promoted with the float32 kernel, not cast
    assert_allclose(plain(x16), ops.convert_to_numpy(plain(x32)), dtype="float16")
