# backends: jax torch tensorflow
"""Mixed precision training with the global `mixed_float16` policy.

Layers compute in float16 and keep float32 variables; the last activation is kept in
float32 as the Keras guide recommends; `compile` wraps the optimizer in a
LossScaleOptimizer. The dataset size is not a multiple of the batch size.
"""

import numpy as np
from sklearn.datasets import load_digits

import lamina as keras

keras.mixed_precision.set_global_policy("mixed_float16")
try:
    assert keras.mixed_precision.global_policy().name == "mixed_float16"
    keras.utils.set_random_seed(8)
    digits = load_digits()
    x = (digits.data / 16.0).astype("float32")
    y = digits.target.astype("int32")
    assert len(x) % 64 != 0

    inputs = keras.Input(shape=(64,))
    hidden = keras.layers.Dense(64, activation="relu", name="hidden")(inputs)
    logits = keras.layers.Dense(10, name="logits")(hidden)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="probabilities")(logits)
    model = keras.Model(inputs, outputs)

    dense = model.get_layer("hidden")
    assert dense.compute_dtype == "float16", dense.compute_dtype
    assert dense.variable_dtype == "float32", dense.variable_dtype
    assert dense.kernel.dtype == "float32", dense.kernel.dtype
    assert model.get_layer("probabilities").compute_dtype == "float32"
    assert keras.backend.standardize_dtype(dense(x[:2]).dtype) == "float16"
    assert keras.backend.standardize_dtype(model(x[:2]).dtype) == "float32"

    model.compile(
        optimizer=keras.optimizers.Adam(3e-3),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    assert isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer), model.optimizer
    history = model.fit(x, y, batch_size=64, epochs=4, validation_split=0.2, verbose=0)
    losses = history.history["loss"]
    assert np.all(np.isfinite(losses)), losses
    assert losses[-1] < losses[0] * 0.5, losses
    assert history.history["val_accuracy"][-1] > 0.85, history.history
    assert dense.kernel.dtype == "float32"
    probabilities = model.predict(x, verbose=0)
    assert probabilities.dtype == np.float32, probabilities.dtype
    np.testing.assert_allclose(probabilities.sum(axis=-1), 1.0, atol=1e-3)
    print("losses", [round(v, 4) for v in losses])
finally:
    keras.mixed_precision.set_global_policy("float32")
