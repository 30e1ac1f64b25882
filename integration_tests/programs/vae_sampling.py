# backends: jax torch tensorflow
"""A variational autoencoder on 8x8 digits with a sampling layer and add_loss.

The sampling layer draws `keras.random.normal` with the batch's own (traced) shape and
a SeedGenerator, and adds the KL term with `add_loss`; the decoder reshapes with a
batch size read from `ops.shape`. Dropout with a `noise_shape` sits in the encoder.
Codes of the same digit end up closer together than codes of different digits.
"""

import numpy as np
from sklearn.datasets import load_digits

import lamina as keras
from lamina import ops

LATENT = 2


class Sampling(keras.layers.Layer):
    def __init__(self, kl_weight=1.0, **kwargs):
        super().__init__(**kwargs)
        self.kl_weight = kl_weight
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = keras.random.normal(shape=ops.shape(z_mean), seed=self.seed_generator)
        kl = -0.5 * ops.mean(
            ops.sum(1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var), axis=1)
        )
        self.add_loss(self.kl_weight * kl)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class ToImage(keras.layers.Layer):
    def call(self, x):
        return ops.reshape(x, (ops.shape(x)[0], 8, 8, 1))


keras.utils.set_random_seed(23)
digits = load_digits()
images = (digits.images / 16.0).astype("float32")[..., None]
labels = digits.target

inputs = keras.Input((8, 8, 1))
x = keras.layers.Flatten()(inputs)
x = keras.layers.Dense(64, activation="relu")(x)
x = keras.layers.Reshape((8, 8))(x)
x = keras.layers.Dropout(0.1, noise_shape=(None, 1, 8))(x)
x = keras.layers.Flatten()(x)
z_mean = keras.layers.Dense(LATENT, name="z_mean")(x)
z_log_var = keras.layers.Dense(LATENT, name="z_log_var")(x)
z = Sampling(kl_weight=0.02, name="sampling")([z_mean, z_log_var])
encoder = keras.Model(inputs, [z_mean, z_log_var, z], name="encoder")

latent = keras.Input((LATENT,))
y = keras.layers.Dense(64, activation="relu")(latent)
y = keras.layers.Dense(64, activation="sigmoid")(y)
decoder = keras.Model(latent, ToImage()(y), name="decoder")

vae = keras.Model(inputs, decoder(encoder(inputs)[2]), name="vae")
vae.compile(optimizer=keras.optimizers.Adam(3e-3), loss="binary_crossentropy")
history = vae.fit(images, images, epochs=15, batch_size=64, validation_split=0.1, verbose=0)
losses = history.history["loss"]
assert np.all(np.isfinite(losses)), losses
assert losses[-1] < losses[0] * 0.85, losses
vae(images[:8])  # an eager call leaves the losses it added in `model.losses`
assert len(vae.losses) == 1, vae.losses
assert float(keras.ops.convert_to_numpy(vae.losses[0])) > 0.0

# The KL term is part of the reported loss: evaluate exceeds the reconstruction alone.
reconstruction = vae.predict(images, verbose=0)
bce = -np.mean(
    images * np.log(np.clip(reconstruction, 1e-7, 1))
    + (1 - images) * np.log(np.clip(1 - reconstruction, 1e-7, 1))
)
assert vae.evaluate(images, images, verbose=0) > bce - 0.02

means = encoder.predict(images, verbose=0)[0]
assert means.shape == (len(images), LATENT)
centroids = np.stack([means[labels == d].mean(axis=0) for d in range(10)])
within = np.mean(
    [np.linalg.norm(means[labels == d] - centroids[d], axis=1).mean() for d in range(10)]
)
between = np.mean(
    [np.linalg.norm(centroids[a] - centroids[b]) for a in range(10) for b in range(a + 1, 10)]
)
assert between > within, (between, within)
samples = decoder.predict(np.random.default_rng(0).normal(size=(4, LATENT)), verbose=0)
assert samples.shape == (4, 8, 8, 1)
print("loss", losses[0], "->", losses[-1], "between/within", between / within)
