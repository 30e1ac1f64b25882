"""`layers.JaxLayer` and `layers.FlaxLayer`: JAX functions and Flax modules as layers."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import backend

on_jax = pytest.mark.skipif(
    backend() != "jax", reason="JaxLayer and FlaxLayer run JAX code: jax backend only"
)


def linear_init(rng, inputs):
    import jax

    return {"w": jax.random.normal(rng, (inputs.shape[-1], 1)) * 0.1, "b": np.zeros((1,))}


def linear_apply(params, inputs):
    return inputs @ params["w"] + params["b"]


def counting_init(inputs, rng):
    return linear_init(rng, inputs), {"calls": np.zeros((), "int32")}


def counting_apply(params, state, inputs, training):
    """A linear map whose state counts the training calls."""
    return linear_apply(params, inputs), {"calls": state["calls"] + int(training)}


def _data(n=64):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [2.0], [-1.0]], "float32") + 0.5).astype("float32")


@pytest.mark.skipif(backend() == "jax", reason="checks the error on other backends")
def test_other_backends_refuse_them_naming_the_jax_backend():
    with pytest.raises(ValueError, match=r"`JaxLayer` runs JAX functions.*'jax' backend"):
        layers.JaxLayer(linear_apply, linear_init)
    with pytest.raises(ValueError, match=r"`FlaxLayer` runs a Flax module.*'jax' backend"):
        layers.FlaxLayer(object())


@on_jax
def test_init_fn_runs_at_build_and_its_params_are_trainable_variables():
    layer = layers.JaxLayer(linear_apply, linear_init, seed=1)
    assert not layer.built
    x, _ = _data(4)
    out = np.asarray(layer(x))
    assert sorted(v.name for v in layer.trainable_weights) == ["params.b", "params.w"]
    assert layer.non_trainable_weights == []
    assert layer.non_trainable_variables == [layer.seed_generator.state]
    w = next(v for v in layer.weights if v.name == "params.w").numpy()
    np.testing.assert_allclose(out, x @ w, rtol=1e-6)


@on_jax
def test_jitted_fit_trains_the_params():
    model = lamina.Sequential([lamina.Input((3,)), layers.JaxLayer(linear_apply, linear_init)])
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    assert model.jit_compile
    x, y = _data()
    history = model.fit(x, y, epochs=60, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 1e-2 * history.history["loss"][0]
    w = next(v for v in model.weights if v.name == "params.w").numpy()
    np.testing.assert_allclose(w.ravel(), [1.0, 2.0, -1.0], atol=0.05)


@on_jax
def test_state_is_non_trainable_and_updated_through_fit():
    layer = layers.JaxLayer(counting_apply, counting_init)
    model = lamina.Sequential([lamina.Input((3,)), layer])
    model.compile(optimizer="sgd", loss="mse")
    x, y = _data(40)
    model.fit(x, y, epochs=2, batch_size=10, verbose=0)  # 4 steps an epoch
    calls = next(v for v in layer.non_trainable_weights if v.name == "state.calls")
    assert int(calls.numpy()) == 8
    model.predict(x, verbose=0)
    assert int(calls.numpy()) == 8  # inference calls pass training=False


@on_jax
def test_rng_draws_a_new_key_each_call_from_the_seed():
    import jax

    def noisy(params, rng, inputs):
        return inputs + jax.random.normal(rng, inputs.shape) + params["zero"]

    x = np.zeros((2, 3), "float32")
    first = layers.JaxLayer(noisy, params={"zero": np.zeros((3,), "float32")}, seed=7)
    again = layers.JaxLayer(noisy, params={"zero": np.zeros((3,), "float32")}, seed=7)
    a, b = np.asarray(first(x)), np.asarray(first(x))
    assert first.built and not np.allclose(a, b)
    np.testing.assert_array_equal(np.asarray(again(x)), a)


@on_jax
def test_functions_with_unknown_arguments_and_no_initial_values_are_refused():
    with pytest.raises(ValueError, match=r"`call_fn` must take parameters named among"):
        layers.JaxLayer(lambda weights, inputs: inputs, params={})
    with pytest.raises(ValueError, match=r"`init_fn` must take parameters named among"):
        layers.JaxLayer(linear_apply, lambda key, inputs: {})
    with pytest.raises(ValueError, match=r"`init_fn`, `params` and `state` cannot all be None"):
        layers.JaxLayer(linear_apply)
    with pytest.raises(ValueError, match=r"`init_fn` must return `\(params, state\)`"):
        layers.JaxLayer(counting_apply, linear_init)(np.zeros((1, 3), "float32"))


@on_jax
def test_a_saved_model_reloads_with_registered_functions(tmp_path):
    pytest.importorskip("lamina_saving")
    custom = {"linear_apply": linear_apply, "linear_init": linear_init}
    model = lamina.Sequential([lamina.Input((3,)), layers.JaxLayer(linear_apply, linear_init)])
    config = model.layers[0].get_config()
    assert config["call_fn"]["config"] == "linear_apply"
    path = tmp_path / "jax_layer.lamina"
    model.save(path)
    restored = lamina.saving.load_model(path, custom_objects=custom)
    x, _ = _data(5)
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))


# --- Flax --------------------------------------------------------------------------------


def _flax_mlp():
    nn = pytest.importorskip("flax.linen", reason="flax is not installed")

    class MLP(nn.Module):
        features: int = 8

        @nn.compact
        def __call__(self, x, training: bool = False):
            x = nn.Dense(self.features)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = nn.Dropout(0.1, deterministic=not training)(nn.relu(x))
            return nn.Dense(1)(x)

    return MLP


@on_jax
def test_flax_params_train_and_batch_stats_update_in_fit():
    mlp = _flax_mlp()
    layer = layers.FlaxLayer(mlp(features=16), seed=0)
    model = lamina.Sequential([lamina.Input((3,)), layer])
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="mse")
    x, y = _data(128)
    trainable = sorted(v.name for v in layer.trainable_weights)
    assert trainable == [
        "params.BatchNorm_0.bias",
        "params.BatchNorm_0.scale",
        "params.Dense_0.bias",
        "params.Dense_0.kernel",
        "params.Dense_1.bias",
        "params.Dense_1.kernel",
    ]
    mean = next(v for v in layer.weights if v.name == "state.batch_stats.BatchNorm_0.mean")
    assert not mean.trainable and np.allclose(mean.numpy(), 0.0)
    history = model.fit(x, y, epochs=40, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    assert not np.allclose(mean.numpy(), 0.0)
    # Inference is deterministic (no dropout, running statistics).
    np.testing.assert_array_equal(model.predict(x, verbose=0), model.predict(x, verbose=0))


@on_jax
def test_flax_module_from_given_variables_and_config_round_trip():
    import jax

    mlp = _flax_mlp()
    module = mlp(features=4)
    x, _ = _data(6)
    variables = module.init({"params": jax.random.PRNGKey(0)}, x)
    layer = layers.FlaxLayer(module, variables=variables)
    assert layer.built
    expected = module.apply(variables, x)
    np.testing.assert_allclose(np.asarray(layer(x)), np.asarray(expected), rtol=1e-6)
    config = layer.get_config()
    assert config["module"]["config"] == {"features": 4}
    with lamina.saving.CustomObjectScope({"MLP": mlp}):
        clone = layers.FlaxLayer.from_config(config)
    clone(x)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(np.asarray(clone(x)), np.asarray(expected), rtol=1e-6)
