"""`SpectralNormalization`: power iteration, kernel normalized in training only."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.layers.core.dense import Dense
from lamina.layers.normalization import SpectralNormalization
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 5)).astype("float32")


def power_iteration_ref(kernel, u, steps):
    w = kernel.reshape(-1, kernel.shape[-1])
    v = u
    for _ in range(steps):
        v = u @ w.T
        v = v / np.linalg.norm(v)
        u = v @ w
        u = u / np.linalg.norm(u)
    sigma = (v @ w @ u.T).item()
    return u, kernel / sigma


def test_contract():
    check_layer(
        SpectralNormalization,
        {"layer": Dense(3), "power_iterations": 2},
        (4, 5),
        expected_output_shape=(4, 3),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=1,
        custom_objects={"Dense": Dense},
    )


def test_one_training_step_matches_reference():
    layer = SpectralNormalization(Dense(3), power_iterations=1)
    layer.build(X.shape)
    kernel = layer.kernel.numpy()
    u0 = layer.vector_u.numpy()
    out = layer(X, training=True)
    u_ref, kernel_ref = power_iteration_ref(kernel, u0, 1)
    assert_allclose(layer.vector_u, u_ref, loose=10)
    assert_allclose(layer.kernel, kernel_ref, loose=10)
    bias = layer.layer.bias.numpy()
    assert_allclose(out, X @ kernel_ref + bias, loose=10)


def test_many_iterations_reach_unit_spectral_norm():
    layer = SpectralNormalization(Dense(4), power_iterations=60)
    layer(X, training=True)
    assert np.linalg.norm(layer.kernel.numpy(), 2) == pytest.approx(1.0, rel=1e-3)


def test_inference_leaves_the_kernel():
    layer = SpectralNormalization(Dense(3))
    layer.build(X.shape)
    kernel = layer.kernel.numpy()
    out = layer(X, training=False)
    assert_allclose(layer.kernel, kernel)
    assert_allclose(out, X @ kernel + layer.layer.bias.numpy(), loose=10)


def test_stateless_training_call_returns_new_vector_u():
    layer = SpectralNormalization(Dense(3))
    layer.build(X.shape)
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]
    u0 = layer.vector_u.numpy()
    _, new_values = layer.stateless_call(trainable, non_trainable, X, training=True)
    u_ref, _ = power_iteration_ref(layer.kernel.numpy(), u0, 1)
    assert_allclose(new_values[0], u_ref, loose=10)
    assert_allclose(layer.vector_u, u0)


def test_config_round_trip_rebuilds_the_wrapped_layer():
    from lamina.saving.serialization import CustomObjectScope

    layer = SpectralNormalization(Dense(7), power_iterations=3)
    with CustomObjectScope({"Dense": Dense}):
        clone = SpectralNormalization.from_config(layer.get_config())
    assert isinstance(clone.layer, Dense) and clone.layer.units == 7
    assert clone.power_iterations == 3
    assert ops.shape(clone(X)) == (4, 7)


def test_bad_arguments():
    with pytest.raises(TypeError, match="layer="):
        SpectralNormalization("dense")
    with pytest.raises(ValueError, match="power_iterations=0"):
        SpectralNormalization(Dense(2), power_iterations=0)
    from lamina.layers.normalization import UnitNormalization

    with pytest.raises(ValueError, match="kernel"):
        SpectralNormalization(UnitNormalization())(X)
