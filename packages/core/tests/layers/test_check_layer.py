"""`lamina.testing.check_layer` passes on sound layers and fails on each kind of flaw."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backend import Capability
from lamina.layers import Layer
from lamina.testing import check_layer


def ones(shape, dtype=None):
    return np.ones(shape, dtype)


def zeros(shape, dtype=None):
    return np.zeros(shape, dtype)


class Affine(Layer):
    """y = x * scale + bias, with a non-trainable running sum of batch means."""

    def __init__(self, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.offset = offset
        self.supports_masking = True

    def build(self, input_shape):
        dim = input_shape[-1]
        self.scale = self.add_weight(shape=(dim,), initializer=ones, name="scale")
        self.bias = self.add_weight(shape=(dim,), initializer=zeros, name="bias")
        self.total = self.add_weight(
            shape=(dim,), initializer=zeros, trainable=False, name="total"
        )

    def call(self, x, training=None):
        if training:
            axes = tuple(range(len(x.shape) - 1))
            self.total.assign(self.total + ops.cast(ops.mean(x, axis=axes), self.total.dtype))
        # `.value`: a strict array-API tensor takes no Variable operand.
        return x * self.scale.value + self.bias.value + self.offset

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "offset": self.offset}


class WrongShape(Affine):
    """Claims to drop the last dim, but does not."""

    def compute_output_shape(self, input_shape):
        return input_shape[:-1]


class ForgetsConfig(Affine):
    """Loses `offset` in its config."""

    def get_config(self):
        config = super().get_config()
        config.pop("offset")
        return config


class NotDeterministic(Affine):
    """Adds a counter that changes on each call (outputs differ between equal layers)."""

    calls = 0

    def call(self, x, training=None):
        NotDeterministic.calls += 1
        return x + float(NotDeterministic.calls)

    def compute_output_shape(self, input_shape):
        return input_shape


class StatefulOutsideVariables(Affine):
    """Keeps state in a Python attribute, so stateless_call disagrees with __call__."""

    def build(self, input_shape):
        super().build(input_shape)
        self.python_state = 0.0

    def call(self, x, training=None):
        self.python_state += 1.0
        return x * self.scale.value + self.python_state


class Float64Weights(Affine):
    """Forces float64 variables: mixed precision must keep them float32."""

    def build(self, input_shape):
        self.scale = self.add_weight(
            shape=(input_shape[-1],), initializer=ones, dtype="float16", name="scale"
        )

    def call(self, x, training=None):
        return x * ops.cast(self.scale, x.dtype)


class Noise(Layer):
    """Adds seeded Gaussian noise in training: equal seeds must give equal noise."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed
        self.generator = lamina.random.SeedGenerator(seed)

    def call(self, x, training=None):
        if training:
            return x + lamina.random.normal(ops.shape(x), seed=self.generator, dtype=x.dtype)
        return x

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


class Concat(Layer):
    """Two inputs, concatenated on the last axis (a nested input_shape)."""

    def call(self, inputs):
        return ops.concatenate(inputs, axis=-1)


def test_a_sound_layer_passes_every_check():
    layer = check_layer(
        Affine,
        {"offset": 1.5},
        (2, 3, 4),
        expected_output_shape=(2, 3, 4),
        expected_output_dtype="float32",
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=1,
        expected_num_losses=0,
        supports_masking=True,
    )
    assert layer.built


def test_seeded_random_layer_passes():
    check_layer(Noise, {"seed": 3}, (2, 4), expected_num_non_trainable_weights=0)


def test_nested_inputs_pass():
    check_layer(Concat, {}, [(2, 3), (2, 5)], expected_output_shape=(2, 8))


def test_given_input_data_is_used():
    data = np.arange(12, dtype="float32").reshape(3, 4)
    check_layer(Affine, {}, input_data=data, expected_output_shape=(3, 4))


def test_wrong_compute_output_shape_fails():
    with pytest.raises(AssertionError, match=r"check_layer\(WrongShape\) \[compute_output_shape\]"):
        check_layer(WrongShape, {}, (2, 4))


def test_wrong_expected_output_shape_fails():
    with pytest.raises(AssertionError, match=r"\[output shape\]"):
        check_layer(Affine, {}, (2, 4), expected_output_shape=(2, 5))


def test_wrong_weight_counts_fail():
    with pytest.raises(AssertionError, match=r"\[trainable weights\].*2 trainable weights"):
        check_layer(Affine, {}, (2, 4), expected_num_trainable_weights=3)
    with pytest.raises(AssertionError, match=r"\[non-trainable weights\]"):
        check_layer(Affine, {}, (2, 4), expected_num_non_trainable_weights=0)
    with pytest.raises(AssertionError, match=r"\[losses\]"):
        check_layer(Affine, {}, (2, 4), expected_num_losses=1)


def test_wrong_output_dtype_fails():
    with pytest.raises(AssertionError, match=r"\[output dtype\]"):
        check_layer(Affine, {}, (2, 4), expected_output_dtype="float16")


def test_lost_config_argument_fails():
    with pytest.raises(AssertionError, match=r"\[config after build\].*differs"):
        check_layer(ForgetsConfig, {"offset": 2.0}, (2, 4))


def test_masking_expectation_is_checked():
    with pytest.raises(AssertionError, match=r"\[masking\].*supports_masking is True"):
        check_layer(Affine, {}, (2, 4), supports_masking=False)


def test_nondeterministic_layer_fails():
    pattern = r"\[(config after build|stateless_call|determinism)\]"
    with pytest.raises(AssertionError, match=pattern):
        check_layer(NotDeterministic, {}, (2, 4))


def test_state_outside_variables_breaks_stateless_call():
    with pytest.raises(AssertionError, match=r"\[stateless_call\]"):
        check_layer(StatefulOutsideVariables, {}, (2, 4))


@pytest.mark.half_precision
def test_half_precision_variables_fail_mixed_precision():
    with pytest.raises(AssertionError, match=r"\[mixed precision\].*float16"):
        check_layer(Float64Weights, {}, (2, 4))
    check_layer(Float64Weights, {}, (2, 4), run_mixed_precision_check=False)


def test_not_built_after_instantiation_fails_when_required():
    with pytest.raises(AssertionError, match=r"\[build\]"):
        check_layer(Affine, {}, (2, 4), assert_built_after_instantiation=True)


def test_missing_shape_and_data_is_a_value_error():
    with pytest.raises(ValueError, match="input_shape"):
        check_layer(Affine, {})


# --- the fit check: the layer in a model, through the backend's own compiled steps -------


class StaticBatchReshape(Affine):
    """Reads the batch size as a Python value: unknown (None) in a TF step's retrace."""

    def call(self, x, training=None):
        return ops.reshape(x * self.scale.value, (x.shape[0], -1))


class UnusedWeight(Affine):
    """Trainable weights whose gradients are zero: fit cannot train them."""

    def call(self, x, training=None):
        return x + 0.0 * self.scale


class ArgMax(Layer):
    """Integer outputs: no loss can train through them."""

    def call(self, x):
        return ops.argmax(x, axis=-1)


def test_python_batch_size_fails_the_fit_check_where_the_batch_is_traced():
    if lamina.backend.backend() == "tensorflow":
        with pytest.raises(AssertionError, match=r"check_layer\(StaticBatchReshape\) \[fit"):
            check_layer(StaticBatchReshape, {}, (2, 4))
    else:  # JAX, torch and NumPy see the batch size as an int in every step
        check_layer(StaticBatchReshape, {}, (2, 4))
    check_layer(StaticBatchReshape, {}, (2, 4), skip_fit_check="reads x.shape[0] in Python")


@pytest.mark.requires(Capability.TRAINING)
def test_a_weight_fit_cannot_train_fails():
    with pytest.raises(AssertionError, match=r"\[fit.*changed none of the layer's trainable"):
        check_layer(UnusedWeight, {}, (2, 4))


def test_integer_outputs_need_an_explicit_reason():
    with pytest.raises(AssertionError, match=r"\[fit.*skip_fit_check"):
        check_layer(ArgMax, {}, (2, 4), run_training_check=False)
    check_layer(ArgMax, {}, (2, 4), skip_fit_check="integer outputs")


def test_skip_fit_check_needs_a_reason():
    with pytest.raises(ValueError, match="skip_fit_check"):
        check_layer(Affine, {}, (2, 4), skip_fit_check="  ")
