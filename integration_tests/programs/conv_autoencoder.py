# backends: jax torch tensorflow
"""A convolutional autoencoder on 8x8 digits with Conv2DTranspose.

The encoder and decoder are separate models composed into the autoencoder; the
reconstruction error must fall well below that of predicting the mean image, and the
encoder alone gives codes of the expected shape.
"""

import numpy as np
from sklearn.datasets import load_digits

import lamina as keras

keras.utils.set_random_seed(19)
images = (load_digits().images / 16.0).astype("float32")[..., None]
x_train, x_test = images[:1500], images[1500:]

encoder = keras.Sequential(
    [
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu"),
        keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu"),
    ],
    name="encoder",
)
decoder = keras.Sequential(
    [
        keras.Input((2, 2, 8)),
        keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu"),
        keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu"),
        keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid"),
    ],
    name="decoder",
)
inputs = keras.Input((8, 8, 1))
autoencoder = keras.Model(inputs, decoder(encoder(inputs)), name="autoencoder")
assert autoencoder.output_shape == (None, 8, 8, 1), autoencoder.output_shape
autoencoder.compile(
    optimizer=keras.optimizers.Adam(5e-3), loss="binary_crossentropy", metrics=["mse"]
)
history = autoencoder.fit(
    x_train, x_train, epochs=12, batch_size=64, validation_data=(x_test, x_test), verbose=0
)
losses = history.history["loss"]
assert losses[-1] < losses[0] * 0.8, losses

reconstructed = autoencoder.predict(x_test, verbose=0)
assert reconstructed.shape == x_test.shape
assert reconstructed.min() >= 0.0 and reconstructed.max() <= 1.0
error = ((reconstructed - x_test) ** 2).mean()
baseline = ((x_train.mean(axis=0) - x_test) ** 2).mean()
assert error < 0.6 * baseline, (error, baseline)
np.testing.assert_allclose(history.history["val_mse"][-1], error, rtol=1e-3)
codes = encoder.predict(x_test, verbose=0)
assert codes.shape == (len(x_test), 2, 2, 8), codes.shape
np.testing.assert_allclose(decoder.predict(codes, verbose=0), reconstructed, atol=1e-5)
print("reconstruction MSE", error, "mean-image baseline", baseline)
