# backends: numpy jax torch tensorflow
"""Looking inside a model: summary, layers, shapes, JSON, feature extraction.

What people do before training: print the summary, count parameters, walk
`model.layers`, rebuild the model from JSON, and cut a feature extractor out of it
with `keras.Model(model.inputs, layer.output)`.
"""

import json

import numpy as np

import lamina as keras

inputs = keras.Input((16, 16, 3), name="image")
x = keras.layers.Conv2D(8, 3, activation="relu", name="conv")(inputs)
x = keras.layers.MaxPooling2D(name="pool")(x)
x = keras.layers.Flatten(name="flatten")(x)
features = keras.layers.Dense(12, activation="relu", name="features")(x)
outputs = keras.layers.Dense(4, activation="softmax", name="classes")(features)
model = keras.Model(inputs, outputs, name="classifier")

lines = []
model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
text = "\n".join(lines)
for name in ("classifier", "conv", "pool", "flatten", "features", "classes"):
    assert name in text, (name, text)
params = 3 * 3 * 3 * 8 + 8 + 7 * 7 * 8 * 12 + 12 + 12 * 4 + 4
assert model.count_params() == params, model.count_params()
assert f"{params:,}" in text, text

assert model.input_shape == (None, 16, 16, 3)
assert model.output_shape == (None, 4)
assert model.get_layer("conv").output.shape == (None, 14, 14, 8)
assert model.get_layer("pool").output.shape == (None, 7, 7, 8)
assert model.get_layer(index=-1).name == "classes"
assert [w.shape for w in model.get_layer("features").weights] == [(392, 12), (12,)]
assert len(model.trainable_weights) == 6 and model.non_trainable_weights == []

config = json.loads(model.to_json())
assert config["class_name"] == "Functional", config["class_name"]
rebuilt = keras.models.model_from_json(model.to_json())
assert rebuilt.count_params() == params and rebuilt.name == "classifier"
rebuilt.set_weights(model.get_weights())
images = np.random.default_rng(22).uniform(size=(5, 16, 16, 3)).astype("float32")
np.testing.assert_allclose(
    rebuilt.predict(images, verbose=0), model.predict(images, verbose=0), atol=1e-6
)

extractor = keras.Model(model.inputs, model.get_layer("features").output)
embedding = extractor.predict(images, verbose=0)
assert embedding.shape == (5, 12)
assert extractor.get_layer("features") is model.get_layer("features")
head = model.get_layer("classes")
np.testing.assert_allclose(
    keras.ops.convert_to_numpy(head(embedding)), model.predict(images, verbose=0), atol=1e-6
)

# Keras 3 lists a functional model's InputLayer first in `model.layers`, so indexes
# in code written for Keras 3 (`model.layers[1]` is the first real layer) line up.
assert isinstance(model.layers[0], keras.layers.InputLayer), model.layers
assert [layer.name for layer in model.layers] == [
    "image",
    "conv",
    "pool",
    "flatten",
    "features",
    "classes",
], [layer.name for layer in model.layers]
print("summary has", len(lines), "lines;", params, "parameters")
