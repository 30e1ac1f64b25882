"""Embedding, Lambda, Activation, Identity and Masking: numerics, masks, configs."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers.core import Activation, Dense, Embedding, Identity, Lambda, Masking
from lamina.layers.layer import Layer
from lamina.saving import serialization
from lamina.testing import assert_allclose, check_layer

IDS = np.array([[1, 0, 3], [2, 2, 0]], dtype="int32")


class MaskProbe(Layer):
    """Records the mask it receives (in a functional model)."""

    def call(self, x, mask=None):
        self.seen_mask = mask
        return x


def test_embedding_looks_up_rows():
    layer = Embedding(5, 3)
    out = layer(IDS)
    table = layer.get_weights()[0]
    assert table.shape == (5, 3)
    assert_allclose(out, table[IDS])


def test_embedding_float_ids_are_cast_and_weights_argument_sets_table():
    table = np.arange(15, dtype="float32").reshape(5, 3)
    layer = Embedding(5, 3, weights=[table])
    assert layer.built
    assert_allclose(layer(IDS.astype("float32")), table[IDS])
    with pytest.raises(ValueError, match="weights"):
        Embedding(5, 3, weights=[np.zeros((4, 3))])


def test_embedding_mask_zero():
    layer = Embedding(5, 3, mask_zero=True)
    mask = layer.compute_mask(IDS, None)
    np.testing.assert_array_equal(ops.convert_to_numpy(mask), IDS != 0)
    assert Embedding(5, 3).compute_mask(IDS, None) is None


def test_embedding_mask_reaches_next_layer_in_functional_model():
    inputs = lamina.Input(shape=(3,), dtype="int32")
    x = Embedding(5, 2, mask_zero=True)(inputs)
    probe = MaskProbe()
    model = lamina.Model(inputs, probe(Dense(2)(x)))
    model(IDS)
    np.testing.assert_array_equal(ops.convert_to_numpy(probe.seen_mask), IDS != 0)


def test_embedding_lora():
    layer = Embedding(5, 3)
    before = ops.convert_to_numpy(layer(IDS))
    layer.enable_lora(2)
    assert_allclose(layer(IDS), before)
    assert sorted(v.name for v in layer.trainable_weights) == [
        "lora_embeddings_a",
        "lora_embeddings_b",
    ]
    layer.lora_embeddings_b.assign(np.ones((2, 3), "float32"))
    a = layer.lora_embeddings_a.numpy()
    table = layer._embeddings.numpy() + a @ np.ones((2, 3), "float32")
    assert_allclose(layer(IDS), table[IDS])


def test_embedding_rejects_bad_sizes():
    with pytest.raises(ValueError, match="input_dim"):
        Embedding(0, 3)
    with pytest.raises(ValueError, match="output_dim"):
        Embedding(3, -1)


def test_activation_and_identity():
    x = np.array([[-1.0, 2.0]], dtype="float32")
    assert_allclose(Activation("relu")(x), [[0.0, 2.0]])
    assert_allclose(Activation(ops.square)(x), x**2)
    assert_allclose(Identity()(x), x)
    with pytest.raises(ValueError, match="activation"):
        Activation(None)
    assert Activation("sigmoid").get_config()["activation"] == "sigmoid"


def test_masking_zeroes_masked_steps_and_computes_mask():
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [0.0, 3.0]]], dtype="float32")
    layer = Masking(0.0)
    assert_allclose(layer(x), x)
    mask = ops.convert_to_numpy(layer.compute_mask(x, None))
    np.testing.assert_array_equal(mask, [[True, False, True]])
    y = np.array([[[5.0, 5.0], [1.0, 5.0]]], dtype="float32")
    assert_allclose(Masking(5.0)(y), [[[0.0, 0.0], [1.0, 5.0]]])
    with pytest.raises(ValueError, match="mask_value"):
        Masking("x")


def test_lambda_calls_function_with_arguments():
    layer = Lambda(lambda x, power: x**power, arguments={"power": 3})
    x = np.array([[1.0, 2.0]], dtype="float32")
    assert_allclose(layer(x), x**3)
    with pytest.raises(TypeError, match="function"):
        Lambda(3)


def test_lambda_output_shape_forms():
    sym = lamina.Input(shape=(4,))
    assert tuple(Lambda(lambda x: ops.concatenate([x, x], -1))(sym).shape) == (None, 8)
    given = Lambda(lambda x: x[:, :2], output_shape=(2,))
    assert given.compute_output_shape((None, 4)) == (None, 2)
    fn = Lambda(lambda x: x, output_shape=lambda s: (s[0], 7))
    assert fn.compute_output_shape((3, 4)) == (3, 7)


def test_lambda_mask_argument():
    x = np.ones((2, 3), "float32")
    fixed = Lambda(lambda t: t, mask=np.array([True, False]))
    np.testing.assert_array_equal(fixed.compute_mask(x, None), [True, False])
    fn = Lambda(lambda t: t, mask=lambda inputs, mask: ops.greater(inputs[:, 0], 0))
    np.testing.assert_array_equal(ops.convert_to_numpy(fn.compute_mask(x, None)), [True, True])
    assert not Lambda(lambda t: t).supports_masking


def double(x):
    return x * 2.0


def test_lambda_named_function_round_trips_with_custom_objects():
    x = np.ones((2, 3), "float32")
    check_layer(
        Lambda,
        {"function": double},
        (2, 3),
        expected_output_shape=(2, 3),
        custom_objects={"double": double},
        run_mixed_precision_check=False,
    )
    config = Lambda(double).get_config()
    assert config["function"]["class_name"] == "function"
    revived = Lambda.from_config(config, custom_objects={"double": double})
    assert_allclose(revived(x), 2 * x)


def test_lambda_bytecode_is_refused_in_safe_mode():
    layer = Lambda(lambda x: x + 1.0, output_shape=lambda s: s)
    config = layer.get_config()
    assert config["function"]["class_name"] == "__lambda__"
    assert isinstance(config["function"]["config"]["code"], str)
    with pytest.raises(ValueError, match="safe_mode"):
        Lambda.from_config(config)
    with serialization.SafeModeScope(True), pytest.raises(ValueError, match="bytecode"):
        Lambda.from_config(config, safe_mode=None)
    revived = Lambda.from_config(config, safe_mode=False)
    x = np.zeros((1, 2), "float32")
    assert_allclose(revived(x), x + 1.0)
    with serialization.SafeModeScope(False):
        assert_allclose(Lambda.from_config(config)(x), x + 1.0)
