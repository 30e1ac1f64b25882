# backends: jax torch tensorflow
"""A custom layer with its own weights, registered for serialization, saved as .keras.

The layer makes trainable weights and a non-trainable running statistic with
`add_weight`, updates that statistic during training, and round-trips through
`get_config` and a `.keras` file loaded without `custom_objects`.
"""

import os
import tempfile

import numpy as np

import lamina as keras
from lamina import ops


@keras.saving.register_keras_serializable(package="my_layers")
class ScaledDense(keras.layers.Layer):
    """Dense with a learned output scale, tracking the largest |input| seen in training."""

    def __init__(self, units, initial_scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.initial_scale = initial_scale

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="kernel"
        )
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")
        self.scale = self.add_weight(
            shape=(), initializer=keras.initializers.Constant(self.initial_scale), name="scale"
        )
        self.input_max = self.add_weight(
            shape=(), initializer="zeros", trainable=False, name="input_max"
        )

    def call(self, inputs, training=None):
        if training:
            self.input_max.assign(ops.maximum(self.input_max, ops.max(ops.abs(inputs))))
        return self.scale * (ops.matmul(inputs, self.kernel) + self.bias)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "initial_scale": self.initial_scale})
        return config


assert keras.saving.get_registered_name(ScaledDense) == "my_layers>ScaledDense"
assert keras.saving.get_registered_object("my_layers>ScaledDense") is ScaledDense

layer = ScaledDense(3, initial_scale=0.5, name="scaled")
clone = ScaledDense.from_config(layer.get_config())
assert (clone.units, clone.initial_scale, clone.name) == (3, 0.5, "scaled")

keras.utils.set_random_seed(3)
rng = np.random.default_rng(3)
x = rng.normal(size=(256, 6)).astype("float32")
true_w = rng.normal(size=(6, 1)).astype("float32")
y = (x @ true_w + 0.3).astype("float32")

inputs = keras.Input(shape=(6,))
hidden = ScaledDense(8, initial_scale=0.5, name="scaled")(inputs)
outputs = keras.layers.Dense(1)(keras.layers.Activation("tanh")(hidden))
model = keras.Model(inputs, outputs)
custom = model.get_layer("scaled")
assert len(custom.trainable_weights) == 3
assert len(custom.non_trainable_weights) == 1
assert model.count_params() == 6 * 8 + 8 + 1 + 1 + 8 + 1

model.compile(optimizer=keras.optimizers.Adam(2e-2), loss="mse")
history = model.fit(x, y, epochs=15, batch_size=32, verbose=0)
assert history.history["loss"][-1] < history.history["loss"][0] * 0.3, history.history["loss"]
seen = float(keras.ops.convert_to_numpy(custom.input_max))
assert abs(seen - np.abs(x).max()) < 1e-5, (seen, np.abs(x).max())
assert float(keras.ops.convert_to_numpy(custom.scale)) != 0.5

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "scaled.keras")
    model.save(path)
    restored = keras.models.load_model(path)
restored_layer = restored.get_layer("scaled")
assert isinstance(restored_layer, ScaledDense)
assert restored_layer.get_config() == custom.get_config()
np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-6)
np.testing.assert_allclose(keras.ops.convert_to_numpy(restored_layer.input_max), seen, atol=0)
# The reloaded model keeps training from where it was.
restored.fit(x, y, epochs=1, batch_size=32, verbose=0)
print("final loss", history.history["loss"][-1])
