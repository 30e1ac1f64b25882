"""`layers.TFSMLayer`: a TensorFlow SavedModel endpoint as a layer whose variables train."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import backend
from lamina.saving.serialization import SafeModeScope

on_tensorflow = pytest.mark.skipif(
    backend() != "tensorflow", reason="TFSMLayer runs TensorFlow SavedModels: tensorflow only"
)

W0 = np.array([[0.5, -1.0], [0.25, 0.0], [1.0, 2.0]], "float32")
B0 = np.ones(2, "float32")


@pytest.fixture
def saved_model(tmp_path):
    """An affine map ``x @ w + b * scale`` (scale non-trainable), with a `serve` function,
    a `serving_default` signature and a training endpoint that doubles the output."""
    import tensorflow as tf

    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(W0, name="w")
            self.b = tf.Variable(B0, name="b")
            self.scale = tf.Variable(2.0, trainable=False, name="scale")

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def serve(self, x):
            return tf.matmul(x, self.w) + self.b * self.scale

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def train(self, x):
            return 2.0 * self.serve(x)

    module = Affine()
    path = str(tmp_path / "affine")
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})
    return path


def _reference(x, w=W0, b=B0, scale=2.0):
    return x @ w + b * scale


@pytest.mark.skipif(backend() == "tensorflow", reason="checks the error on other backends")
def test_other_backends_refuse_it_naming_the_tensorflow_backend(tmp_path):
    with pytest.raises(ValueError, match=r"`TFSMLayer` runs a TensorFlow SavedModel.*'tensorflow'"):
        layers.TFSMLayer(str(tmp_path))


@on_tensorflow
def test_endpoint_output_and_variables(saved_model):
    layer = layers.TFSMLayer(saved_model)
    x = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(layer(x).numpy(), _reference(x), rtol=1e-6)
    assert sorted(v.name for v in layer.trainable_weights) == ["b", "w"]
    assert [v.name for v in layer.non_trainable_weights] == ["scale"]
    signature = layers.TFSMLayer(saved_model, call_endpoint="serving_default")
    out = signature(x)
    assert list(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"].numpy(), _reference(x), rtol=1e-6)


@on_tensorflow
def test_the_savedmodel_computes_with_the_layers_variables(saved_model):
    layer = layers.TFSMLayer(saved_model)
    w = next(v for v in layer.weights if v.name == "w")
    w.assign(np.zeros((3, 2), "float32"))
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(layer(x).numpy(), _reference(x, w=np.zeros((3, 2))), rtol=1e-6)


@on_tensorflow
def test_fit_trains_the_savedmodels_variables(saved_model):
    x = np.random.default_rng(1).normal(size=(64, 3)).astype("float32")
    target_w = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], "float32")
    y = _reference(x, w=target_w)
    model = lamina.Sequential([lamina.Input((3,)), layers.TFSMLayer(saved_model)])
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    history = model.fit(x, y, epochs=60, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 1e-2 * history.history["loss"][0]
    w = next(v for v in model.weights if v.name == "w").numpy()
    np.testing.assert_allclose(w, target_w, atol=0.05)
    scale = next(v for v in model.weights if v.name == "scale")
    assert float(scale.numpy()) == 2.0


@on_tensorflow
def test_training_endpoint_is_used_when_training(saved_model):
    layer = layers.TFSMLayer(saved_model, call_training_endpoint="train")
    x = np.ones((1, 3), "float32")
    np.testing.assert_allclose(layer(x, training=True).numpy(), 2 * _reference(x), rtol=1e-6)
    np.testing.assert_allclose(layer(x, training=False).numpy(), _reference(x), rtol=1e-6)


@on_tensorflow
def test_freezing_keeps_the_savedmodel_on_the_layers_variables(saved_model):
    layer = layers.TFSMLayer(saved_model, trainable=False)
    assert layer.trainable_weights == []
    layer.trainable = True
    layer.trainable = False
    w = next(v for v in layer.weights if v.name == "w")
    w.assign(np.zeros((3, 2), "float32"))  # after TF gave the variables new tf.Variables
    x = np.ones((1, 3), "float32")
    np.testing.assert_allclose(layer(x).numpy(), _reference(x, w=np.zeros((3, 2))), rtol=1e-6)


@on_tensorflow
def test_unknown_endpoint_names_the_available_signatures(saved_model):
    with pytest.raises(ValueError, match=r"call_endpoint='predict'.*\['serving_default'\]"):
        layers.TFSMLayer(saved_model, call_endpoint="predict")


@on_tensorflow
def test_from_config_is_refused_in_safe_mode_naming_the_path(saved_model, tmp_path):
    layer = layers.TFSMLayer(saved_model, call_endpoint="serving_default")
    config = layer.get_config()
    assert config["filepath"] == saved_model
    assert config["call_endpoint"] == "serving_default"
    with pytest.raises(ValueError, match=rf"safe mode.*{saved_model!r}"):
        layers.TFSMLayer.from_config(config)
    with SafeModeScope(False):
        assert isinstance(layers.TFSMLayer.from_config(config), layers.TFSMLayer)


@on_tensorflow
def test_a_saved_model_archive_loads_only_outside_safe_mode(saved_model, tmp_path):
    pytest.importorskip("lamina_saving")
    model = lamina.Sequential([lamina.Input((3,)), layers.TFSMLayer(saved_model)])
    next(v for v in model.weights if v.name == "b").assign(np.array([3.0, -3.0], "float32"))
    path = tmp_path / "with_tfsm.lamina"
    model.save(path)
    with pytest.raises(ValueError, match=rf"TFSMLayer.*safe mode.*{saved_model!r}"):
        lamina.saving.load_model(path)
    restored = lamina.saving.load_model(path, safe_mode=False)
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))
